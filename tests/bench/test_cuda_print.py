"""bench/cuda_print.py: pairing our examples with the TIRx peers of bench/cuda_tirx_reference.py,
argument handling, the statistics, the message without the reference environment; and, only
where that environment exists, the reference script's JSON and the side-by-side table."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import cuda_print  # noqa: E402
from cuda_source_sites import ptx_sites  # noqa: E402

from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda  # noqa: E402
from tirx_mlir.located_parser import parse_module  # noqa: E402

STEMS = sorted(p.stem for p in cuda_print.EXAMPLES.glob("*.mlir"))
TIRX_PYTHON = cuda_print.tirx_python(cuda_print.DEFAULT_VENV)
needs_tirx = pytest.mark.skipif(
    TIRX_PYTHON is None, reason=f"no TIRx reference environment at {cuda_print.DEFAULT_VENV}")


def reference_kernels() -> list[str]:
    """The keys of ``KERNELS`` in bench/cuda_tirx_reference.py, read without importing TIRx."""
    tree = ast.parse(cuda_print.REFERENCE.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["KERNELS"]:
            return [k.value for k in node.value.keys]
    raise AssertionError("no KERNELS in the reference script")


def test_every_tirx_peer_is_a_reference_kernel_and_an_example():
    assert sorted(cuda_print.TIRX_PEERS) == sorted(reference_kernels())
    assert set(cuda_print.TIRX_PEERS) <= set(STEMS)


def test_pairing_keeps_the_order_of_the_examples_and_only_the_peers():
    assert cuda_print.paired(["warp_reduce", "vector_add", "gemm_mma_sync", "mma_tile"]) == \
        ["vector_add", "gemm_mma_sync", "mma_tile"]
    assert cuda_print.paired(["transpose", "tma_wgmma"]) == []


def test_examples_selection():
    assert cuda_print.select(STEMS, "") == STEMS
    assert cuda_print.select(STEMS, "vector_add,mma_tile") == ["vector_add", "mma_tile"]
    with pytest.raises(ValueError, match="no example nope in .* \\(known: "):
        cuda_print.select(STEMS, "vector_add,nope")


def test_series_median_and_interquartile_range():
    s = cuda_print.Series()
    s.add(5.0)
    assert (s.median, s.iqr) == (5.0, 0.0)
    for v in (1.0, 2.0, 3.0, 4.0):
        s.add(v)
    assert s.median == 3.0 and s.iqr == 2.0  # quartiles 2 and 4 of 1..5


def test_sites_note_says_same_or_what_differs():
    assert cuda_print.sites_note({"a": 1, "b": 2}, {"b": 2, "a": 1}) == "same (3 sites)"
    assert cuda_print.sites_note({"a": 1, "b": 2}, {"a": 1, "c": 4}) == \
        "differ (ours/TIRx): b 2/0, c 0/4"


def test_the_reference_python_is_found_only_where_it_exists(tmp_path):
    assert cuda_print.tirx_python("") is None
    assert cuda_print.tirx_python(str(tmp_path / "none")) is None
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text("")
    assert cuda_print.tirx_python(str(tmp_path)) == tmp_path / "bin" / "python"


def test_missing_venv_message_names_the_folder_and_how_to_make_it(tmp_path):
    text = cuda_print.missing_venv_message(str(tmp_path / "venv"))
    assert f"no TIRx reference environment at {tmp_path / 'venv'}" in text
    assert "pip install apache-tvm-tirx==0.1.0a4" in text and "goal <= 0.25x" in text
    assert "--tirx-venv ''" in cuda_print.missing_venv_message("")


def test_without_the_venv_ours_is_timed_alone(tmp_path, capsys):
    assert cuda_print.main(["--rounds", "1", "--examples", "vector_add",
                            "--tirx-venv", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out
    assert "\nvector_add " in out and "mma_tile" not in out
    assert f"no TIRx reference environment at {tmp_path / 'none'}" in out
    assert "load average (1, 5, 15 min): before " in out


def test_a_venv_without_tirx_is_reported_with_the_reference_error(tmp_path, capsys):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)  # the project's: no tvm_tirx
    assert cuda_print.main(["--rounds", "1", "--examples", "vector_add",
                            "--tirx-venv", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "TIRx reference did not start: the reference exited (1)" in out
    assert "No module named 'tvm_tirx'" in out and "\nvector_add " in out


@pytest.mark.parametrize("argv, message", [
    (["--examples", "nope"], "no example nope"),
    (["--rounds", "0"], "--rounds must be at least 1"),
])
def test_bad_arguments_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        cuda_print.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@needs_tirx
def test_reference_script_json_for_one_kernel():
    proc = subprocess.run([str(TIRX_PYTHON), str(cuda_print.REFERENCE), "--runs", "2",
                           "--kernels", "vector_add"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert set(result) == {"_meta", "vector_add"}
    assert result["_meta"]["version"] == "0.1.0a4" and result["_meta"]["arch"] == "sm_80"
    entry = result["vector_add"]
    assert set(entry) == {"wall_ms", "cpu_ms", "stages", "ptx_sites", "source_lines"}
    assert set(entry["stages"]) == {"script", "compile", "source"}
    for series in [entry["wall_ms"], entry["cpu_ms"],
                   *(s[k] for s in entry["stages"].values() for k in ("wall_ms", "cpu_ms"))]:
        assert len(series) == 2 and all(v >= 0 for v in series)
    assert all(w > 0 for w in entry["wall_ms"])
    ours = emit_cuda(parse_module((cuda_print.EXAMPLES / "vector_add.mlir").read_text()))
    assert entry["ptx_sites"] == ptx_sites(ours)  # TIRx's source issues the same instructions


@needs_tirx
def test_reference_script_rejects_an_unknown_kernel():
    proc = subprocess.run([str(TIRX_PYTHON), str(cuda_print.REFERENCE), "--kernels", "nope"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "unknown kernel(s) nope" in proc.stderr


@needs_tirx
@pytest.mark.slow
def test_side_by_side_table(capsys):
    assert cuda_print.main(["--rounds", "2", "--examples", "vector_add,transpose"]) == 0
    out = capsys.readouterr().out
    assert "vs TIRx 0.1.0a4" in out and "device module: cuda" in out
    ours_table, tirx_table = out.split("vs TIRx", 1)
    assert "\ntranspose " in ours_table and "transpose" not in tirx_table  # no TIRx peer
    row = next(line for line in tirx_table.splitlines() if line.startswith("vector_add "))
    assert row.endswith("same (3 sites)")
