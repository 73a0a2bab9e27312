"""What the CUDA C++ and PTX printers share: both refuse a collective ptx instruction in a block
that is not whole warps (warpgroups) even when the IR skipped verification, with a located error
and a hint, and print it for whole ones."""

from __future__ import annotations

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.printers.common import collective_problem
from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.diagnostics import op_location
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

load("cuda")

MMA = """tirx.kernel @k(%D: !tirx.buffer<64xf32, global>) grid [1] threads [THREADS] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  %d:4 = ptx.mma_sync "m16n8k16.f32.f16.f16.f32" {%z, %z, %z, %z}, {%z, %z}, {%zf, %zf, %zf, %zf} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  cuda.store %D, %c0, %d#0 : !tirx.buffer<64xf32, global>, index, f32
  tirx.return
}
"""
WGMMA = """tirx.kernel @k() grid [1] threads [THREADS] target "cuda -arch=sm_90a" {
  ptx.wgmma_fence
  tirx.return
}
"""
EMITTERS = [emit_ptx, emit_cuda]


def _unverified(text: str, threads: str):
    return parse_module(text.replace("THREADS", threads), "k.mlir")  # no module.verify()


@pytest.mark.parametrize("emit", EMITTERS)
def test_a_partial_warp_is_refused_at_the_op(emit):
    with pytest.raises(PrintError, match=r"threads \[48\] is not a whole number of warps; "
                                         r"ptx.mma_sync needs all 32 lanes of each warp") as err:
        emit(_unverified(MMA, "48"))
    assert op_location(err.value.op) == ("k.mlir", 5, 3)
    assert "threads [64]" in str(err.value.hint)


@pytest.mark.parametrize("emit", EMITTERS)
def test_a_partial_warpgroup_is_refused(emit):
    with pytest.raises(PrintError, match=r"threads \[8, 8\] \(64 threads\) is not a whole number "
                                         r"of warpgroups; ptx.wgmma_fence needs"):
        emit(_unverified(WGMMA, "8, 8"))


@pytest.mark.parametrize("emit", EMITTERS)
def test_whole_warps_and_warpgroups_print(emit):
    assert "mma.sync.aligned.m16n8k16" in emit(_unverified(MMA, "64"))
    assert "wgmma.fence.sync.aligned" in emit(_unverified(WGMMA, "256"))


def test_collective_problem_reads_the_row_and_the_kernel():
    module = _unverified(MMA, "16")
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    mma = next(op for op in module.walk() if op.name == "ptx.mma_sync")
    message, hint = collective_problem(mma, kernel)
    assert message.startswith("threads [16] is not a whole number of warps")
    assert hint == "launch a multiple of 32 threads per block (e.g. threads [32])"
    assert collective_problem(mma, None) is None
