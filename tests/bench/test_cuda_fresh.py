"""bench/cuda_fresh.py times fresh CUDA compiles: each example gets a row of both sides' CPU and
wall time, and the compile's array imports are listed (ml_dtypes not among them)."""

import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import cuda_fresh  # noqa: E402


def test_one_round_prints_a_row_and_the_compiles_imports(capsys):
    assert cuda_fresh.main(["--rounds", "1", "--examples", "softmax"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("softmax "))
    assert len(re.findall(r"\d+\.\d+", row)) == 4 * 2 + 2 * 2  # 4 times, 2 ratios, IQRs
    assert "against tirx-opt on an empty module" in out
    imports = next(line for line in out.splitlines() if line.startswith("numpy / ml_dtypes"))
    assert "ml_dtypes" not in imports.split(":", 1)[1]


def test_the_compile_command_reads_the_given_checkout():
    cmd = cuda_fresh.compile_cmd(Path("/some/tree"), "softmax")
    assert cmd[1] == "-P" and "sys.path.insert(0, '/some/tree')" in cmd[3]
    assert cmd[4:] == ["--pass-pipeline=cuda", "/some/tree/examples/cuda/tile/softmax.mlir", "-t",
                       "ptx", "-o", "/dev/null"]


def test_a_cuda_level_example_compiles_without_the_pipeline():
    cmd = cuda_fresh.compile_cmd(Path("/some/tree"), "vector_add")
    assert cmd[4:] == ["/some/tree/examples/cuda/vector_add.mlir", "-t", "ptx", "-o", "/dev/null"]
