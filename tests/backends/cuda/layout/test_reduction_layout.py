"""The register layout cuda-default-layout gives a reduction's destination: the source's rows in
the threads that reduce them, replicated over the reduced and unused threads; with it the
reduction moves no data between threads after the butterfly."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.layout.partition import RegisterPartition
from tirx_mlir.backends.cuda.layout.reduction_layout import destination_layout
from tirx_mlir.backends.cuda.layout.reduction_plan import ReductionPlan
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.located_parser import parse_module

CASES = [
    ("S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]", (32, 256), (1,), (32, 1), "tx", 128,
     "S[(4,8):(1@warpid,1)] + R[32:1@laneid]"),
    ("S[(4,128,4):(4,1@tx,1)]", (32, 64), (1,), (32, 1), "tx", 128,
     "S[(4,8):(1,16@tx)] + R[16:1@tx]"),
    ("S[(4,128,4):(4,1@tx,1)]", (32, 64), (0,), (64,), "tx", 128,
     "S[(16,4):(1@tx,1)] + R[8:16@tx]"),
    ("S[(4,128,4):(4,1@tx,1)]", (32, 64), (0, 1), (1, 1), "tx", 128,
     "S[1] + R[(16,8):(1@tx,16@tx)]"),
    ("S[(64,32):(32,1@laneid)]", (64, 32), (1,), (64,), "laneid", 32,
     "S[64] + R[32:1@laneid]"),
    ("S[(2,64):(64,1)]", (2, 64), (1,), (2, 1), "tx", 128, "S[2] + R[128:1@tx]"),
]


@pytest.mark.parametrize("src,shape,axes,dst,axis,threads,expected", CASES)
def test_destination_layout(src, shape, axes, dst, axis, threads, expected):
    layout = destination_layout(TileLayout.parse(src), shape, axes, dst, axis, threads)
    assert str(layout) == expected


@pytest.mark.parametrize("src,shape,axes,dst,axis,threads,expected", CASES)
def test_every_register_reads_its_own_thread(src, shape, axes, dst, axis, threads, expected):
    plan = ReductionPlan(RegisterPartition(TileLayout.parse(src), shape), axes,
                         threads.bit_length() - 1, threads.bit_length() - 1)
    dpart = RegisterPartition(TileLayout.parse(expected), dst)
    strides = [int(np.prod(dst[k + 1:])) for k in range(len(dst))]
    table = np.array([[sum((t + r) * s for t, r, s in zip(
        dpart.thread_coords_of({"tx": tx, "laneid": tx % 32, "warpid": tx // 32}),
        dpart.reg_coords(reg), strides)) for reg in dpart.registers()] for tx in range(threads)])
    assert plan.direct_keys(table) is not None


def test_cuda_default_layout_uses_it():
    text = """tirx.kernel @k(%X: !tirx.buffer<32x64xf32, global>) -> (%Y: !tirx.buffer<32x1xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %x = tirx.alloc : !tirx.buffer<32x64xf32, local>
  %r = tirx.alloc : !tirx.buffer<32x1xf32, local>
  tirx.copy cta %x, %X : !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, global>
  tirx.max cta %r, %x : !tirx.buffer<32x1xf32, local>, !tirx.buffer<32x64xf32, local>
  tirx.copy cta %Y, %r : !tirx.buffer<32x1xf32, global>, !tirx.buffer<32x1xf32, local>
  tirx.return
}
"""
    module = parse_module(text, "k")
    from tirx_mlir.backends.cuda.transforms.default_layout import CudaDefaultLayoutPass
    from xdsl.context import Context

    CudaDefaultLayoutPass().apply(Context(), module)
    printed = str(module)
    assert "!tirx.buffer<32x1xf32, local, S[(4,8):(1,16@tx)] + R[16:1@tx]>" in printed
