"""``tirx-layout`` (tools/tirx_layout.py) as a user runs it, and the layout pictures of
docs/ir.md, which this test generates: each ``<!-- tirx-layout ARGS -->`` marker is followed by a
text block that must be the tool's output and names the SVG the tool writes.

Regenerate the docs after a deliberate change with ``TIRX_MLIR_UPDATE_DOCS=1 pytest
tests/tools/test_tirx_layout.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tirx_mlir.tools.tirx_layout import main

DOCS = Path(__file__).resolve().parents[2] / "docs"
IR_MD = DOCS / "ir.md"
MARKER = re.compile(r"<!-- tirx-layout (.*?) -->\n```text\n(.*?)```\n", re.DOTALL)
UPDATE = os.environ.get("TIRX_MLIR_UPDATE_DOCS", "") not in ("", "0")


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _drawn(args: str, tmp_path: Path, capsys) -> tuple[str, str, str]:
    """(the text the tool prints, the SVG it writes, the SVG's path under docs/)."""
    argv = shlex.split(args)
    svg_at = argv.index("--svg") + 1
    doc_svg = argv[svg_at]
    argv[svg_at] = str(tmp_path / "out.svg")
    code, out, err = run([*argv, "--color-output=never"], capsys)
    assert code == 0, err
    return out, (tmp_path / "out.svg").read_text(), doc_svg


def test_docs_layout_pictures_are_what_the_tool_draws(tmp_path: Path, capsys) -> None:
    text = IR_MD.read_text()
    found = MARKER.findall(text)
    assert len(found) >= 3, "docs/ir.md lost its layout pictures"
    updated = text
    for args, block in found:
        out, svg, doc_svg = _drawn(args, tmp_path, capsys)
        assert f"]({doc_svg})" in text, f"docs/ir.md does not show {doc_svg}"
        if UPDATE:
            updated = updated.replace(f"<!-- tirx-layout {args} -->\n```text\n{block}```",
                                      f"<!-- tirx-layout {args} -->\n```text\n{out}```")
            (DOCS / doc_svg).write_text(svg)
            continue
        assert block == out, f"the text under '<!-- tirx-layout {args} -->' is stale"
        assert (DOCS / doc_svg).read_text() == svg, f"docs/{doc_svg} is stale"
    if UPDATE:
        IR_MD.write_text(updated)


def test_the_console_script_draws_and_writes_svg(tmp_path: Path) -> None:
    tool = os.path.join(os.path.dirname(sys.executable), "tirx-layout")
    cmd = [tool] if os.path.exists(tool) else [sys.executable, "-m", "tirx_mlir", "layout"]
    svg = tmp_path / "p.svg"
    result = subprocess.run([*cmd, "S[(128,512):(1@P,1@F)]", "--shape", "128x512", "--rows",
                             "3", "--cols", "3", "--svg", str(svg)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["layout S[(128,512):(1@P,1@F)] on 128x512", "cell [row, col] = P,F",
                         "colour: P"]
    assert lines[-1].split() == ["127", "127,0", "127,1", "...", "127,511"]
    assert svg.read_text().startswith("<svg ") and "\x1b[" not in result.stdout


def test_ansi_colours_only_when_asked(capsys) -> None:
    code, out, _ = run(["S[(2,4):(4@laneid,1@laneid)]", "--shape", "2x4",
                        "--color-output=always"], capsys)
    assert code == 0 and "\x1b[48;5;" in out
    code, out, _ = run(["S[(2,4):(4@laneid,1@laneid)]", "--shape", "2x4"], capsys)
    assert code == 0 and "\x1b[" not in out  # not a terminal


@pytest.mark.parametrize("argv, message", [
    (["S[4,8]", "--shape", "4x9"], "covers 32 elements (4x8) but the buffer 4x9 has 36"),
    (["S[4,8"], "the following arguments are required: --shape"),
    (["S[4,8", "--shape", "4x8"], "layout 'S[4,8' ends early"),
    (["S[(4,8):(8@lane,1)]", "--shape", "4x8"], "unknown layout axis 'lane'"),
    (["S[4,8]", "--shape", "4x8", "--color", "warpid"], "cannot colour by 'warpid'"),
    (["S[4,8]", "--shape", "4x8", "--dtype", "q7"], "unknown element type 'q7'"),
    (["S[4,8]", "--shape", "4x8", "--svg", "/no/such/dir/x.svg"], "cannot write"),
])
def test_bad_input_is_one_line_and_exit_1(argv: list[str], message: str, capsys) -> None:
    code, _, err = run(argv, capsys)
    assert code == 1 and err.startswith("tirx-layout: error: ") and message in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
