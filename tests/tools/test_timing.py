"""tirx-opt --mlir-timing (tools/timing.py): mlir-opt's report layout, rows that add up."""

from __future__ import annotations

import re
from pathlib import Path

from tirx_mlir.tools.timing import Timer, Timing, render
from tirx_mlir.tools.tirx_opt import main

KERNEL = """\
tirx.kernel @k(%A: !tirx.buffer<8xf32, global>) -> (%B: !tirx.buffer<8xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  tirx.exp %B, %A : !tirx.buffer<8xf32, global>, !tirx.buffer<8xf32, global>
  tirx.return
}
"""

ROW = re.compile(r"^  +(\d+\.\d{4}) \( *(\d+\.\d)%\)  +(\d+\.\d{4}) \( *(\d+\.\d)%\)  (.*)$")


def _rows(report: str) -> list[tuple[float, float, float, float, str]]:
    rows = []
    for line in report.splitlines():
        m = ROW.match(line)
        if m:
            rows.append((float(m[1]), float(m[2]), float(m[3]), float(m[4]), m[5]))
    return rows


def test_render_matches_mlir_layout() -> None:
    root = Timer("Total", wall=2.0, user=1.0)
    parser = root.child("parser", "Parser")
    parser.wall, parser.user = 0.5, 0.25
    pipeline = root.child("pipeline", "'builtin.module' Pipeline")
    pipeline.wall, pipeline.user = 1.0, 0.5
    cse = pipeline.child(0, "cse")
    cse.wall, cse.user = 1.0, 0.5
    timing = Timing(True)
    lines = render(root, [(0, parser), (0, pipeline), (1, cse)]).splitlines()
    assert lines[0] == lines[2] == "===" + "-" * 73 + "==="
    assert lines[1].strip() == "... Execution time report ..."
    assert lines[3] == "  Total Execution Time: 2.0000 seconds"
    assert lines[5] == "  ----User Time----  ----Wall Time----  ----Name----"
    assert lines[6:] == ["    0.2500 ( 25.0%)    0.5000 ( 25.0%)  Parser",
                         "    0.5000 ( 50.0%)    1.0000 ( 50.0%)  'builtin.module' Pipeline",
                         "    0.5000 ( 50.0%)    1.0000 ( 50.0%)    cse",
                         "    1.0000 (100.0%)    2.0000 (100.0%)  Total"]
    assert timing.report().count("Rest") == 1  # the tree display closes with the rest


def test_disabled_timing_reports_nothing() -> None:
    timing = Timing(False)
    with timing.scope(("parser", "Parser")):
        pass
    assert timing.report() == "" and not timing.root.children


def test_mlir_timing_tree_from_the_cli(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("TIRX_VERIFY_AUDIT", raising=False)  # as users run it
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL + "// -----\n" + KERNEL)
    code = main([str(path), "--split-input-file", "-p", "cse,dce", "--mlir-timing"])
    out, err = capsys.readouterr()
    assert code == 0 and "Execution time report" not in out
    assert "  Total Execution Time: " in err
    rows = _rows(err)
    names = [name for *_, name in rows]
    # both chunks in the same rows; cse erased the unused constant, so dce changed nothing
    # and the IR after it is not verified again
    assert names == ["Parser", "'builtin.module' Pipeline", "  cse", "  (V) verify", "  dce",
                     "Output", "Rest", "Total"]
    total = rows[-1]
    assert total[1] == 100.0 and total[3] == 100.0
    top = [r for r in rows[:-1] if not r[4].startswith(" ")]
    assert abs(sum(r[2] for r in top) - total[2]) <= 0.0005 * len(top)  # the rows add up
    pipeline = rows[1]
    assert sum(r[2] for r in rows[2:5]) <= pipeline[2] + 0.0005 * 3


def test_mlir_timing_list_display(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    code = main([str(path), "-p", "cse", "--mlir-timing", "--mlir-timing-display=list"])
    _, err = capsys.readouterr()
    rows = _rows(err)
    assert code == 0 and rows[-1][4] == "Total"
    assert not any(name.startswith(" ") for *_, name in rows)
    walls = [r[2] for r in rows[:-2]]  # sorted by wall time, then Rest and Total
    assert walls == sorted(walls, reverse=True)
    assert {"Parser", "cse", "(V) verify", "Output"} <= {name for *_, name in rows}


def test_no_verification_after_a_pass_that_left_the_ir_as_it_was(tmp_path: Path, capsys,
                                                                  monkeypatch) -> None:
    """tirx-opt verifies where `Pipeline.apply` does: after canonicalize (it erased the unused
    constant), not after the cse that found nothing, nor after the dce and cse it skipped (no
    dead op left; cse already ran on this IR). Without the suite's audit, as users run it."""
    monkeypatch.delenv("TIRX_VERIFY_AUDIT", raising=False)
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    code = main([str(path), "-p", "canonicalize,cse,dce,cse", "--mlir-timing"])
    _, err = capsys.readouterr()
    names = [name.strip() for *_, name in _rows(err)]
    assert code == 0
    assert names[names.index("canonicalize"):names.index("Output")] == \
        ["canonicalize", "(V) verify", "cse", "dce", "cse"]
