"""bench/cuda_dispatch.py times tirx-dispatch alone: the pass really ran (the kernel's tile ops
became CUDA ops) and each example gets its op count and both times; bench/cuda_dump.py reads a
FileCheck input's tirx-opt command off its RUN line."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import cuda_dispatch  # noqa: E402
import cuda_dump  # noqa: E402


def test_measure_runs_the_dispatch_pass():
    ctx, module, dispatch = cuda_dispatch._prepare(cuda_dispatch.TILE / "bias_silu.mlir")
    assert dispatch.name == "tirx-dispatch"
    assert any(op.name.startswith("tirx.") and hasattr(op, "exec_scope") for op in module.walk())
    rows = cuda_dispatch.measure(["bias_silu"], 1)
    row = rows["bias_silu"]
    assert set(row) == {"first", "best", "ops"} and row["best"] > 0 and row["first"] > 0
    dispatch.apply(ctx, module)
    assert row["ops"] == sum(1 for _ in module.walk())
    assert any(op.name.startswith(("cuda.", "ptx.")) for op in module.walk())


def test_run_line_is_the_tirx_opt_command(tmp_path):
    path = tmp_path / "x.mlir"
    path.write_text("// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch "
                    "--verify-diagnostics | filecheck %s\n")
    assert cuda_dump.run_line(path) == [str(path), "--split-input-file", "-p",
                                        "cuda-default-layout,tirx-dispatch"]
    (tmp_path / "y.mlir").write_text("// no run line\n")
    assert cuda_dump.run_line(tmp_path / "y.mlir") is None
    inputs = sorted(cuda_dump.DISPATCH_INPUTS.glob("*.mlir"))
    assert inputs and all(cuda_dump.run_line(p) for p in inputs)
