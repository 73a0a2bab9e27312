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
from tirx_testing.cuda_every_stage import check_every_stage

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


# --- programs the valid-program campaign (tests/property/cuda_valid_campaign.py) found refused


def _kernel(rows: int, cols: int, threads: int, body: str) -> str:
    g = f"!tirx.buffer<{rows}x{cols}xf32, global>"
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}) grid [1] threads [{threads}] target "cuda -arch=sm_80" {{
  %x = tirx.alloc : !tirx.buffer<{rows}x{cols}xf32, local>
  %y = tirx.alloc : !tirx.buffer<{rows}x{cols}xf32, local>
  %m = tirx.alloc : !tirx.buffer<{rows}x1xf32, local>
  tirx.copy cta %x, %X : !tirx.buffer<{rows}x{cols}xf32, local>, {g}
{body}  tirx.copy cta %Y, %y : {g}, !tirx.buffer<{rows}x{cols}xf32, local>
  tirx.return
}}
"""


def _row_sum(rows, cols):
    t, r = f"!tirx.buffer<{rows}x{cols}xf32, local>", f"!tirx.buffer<{rows}x1xf32, local>"
    return (f"  tirx.sum cta %m, %x axes [1] : {r}, {t}\n"
            f"  tirx.sub cta %y, %x, %m : {t}, {t}, {r}\n")


@pytest.mark.parametrize("rows,cols,threads", [(32, 12, 32), (3, 1, 64), (3, 16, 128)])
def test_a_reduced_tile_whose_default_spread_is_no_power_of_two(rows, cols, threads):
    """[32, 12] over 32 threads: the default spread uses 24 threads (digits of 3 and 8), which
    the reduction cannot read as bits of the thread index; the reduced tile and the tiles of
    its shape get the reduction's spread instead."""
    check_every_stage(_kernel(rows, cols, threads, _row_sum(rows, cols)),
                      lambda x: [x - x.sum(1, keepdims=True)], rtol=1e-5, atol=1e-5)


def test_an_accum_destination_filled_first_gets_the_reductions_layout():
    """``fill %m; max %m, %x accum``: %m's first use is the fill, and it now gets the layout of
    the reduction that writes it (the broadcast ``sub`` found its rows in other threads)."""
    t, r = "!tirx.buffer<8x64xf32, local>", "!tirx.buffer<8x1xf32, local>"
    body = ("  %h = arith.constant 0.5 : f32\n"
            f"  tirx.fill cta %m, %h : {r}, f32\n"
            f"  tirx.max cta %m, %x axes [1] accum : {r}, {t}\n"
            f"  tirx.sub cta %y, %x, %m : {t}, {t}, {r}\n")
    check_every_stage(_kernel(8, 64, 128, body),
                      lambda x: [x - np.maximum(x.max(1, keepdims=True), np.float32(0.5))])


def test_a_destination_allocated_before_its_source_gets_the_sources_rows():
    """cuda-default-layout lays out reduction destinations after the other tiles: %m comes
    first in the program, and its layout follows from %x's."""
    t, r = "!tirx.buffer<8x64xf32, local>", "!tirx.buffer<8x1xf32, local>"
    g = "!tirx.buffer<8x64xf32, global>"
    text = f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}) grid [1] threads [128] target "cuda -arch=sm_80" {{
  %m = tirx.alloc : {r}
  %x = tirx.alloc : {t}
  tirx.copy cta %x, %X : {t}, {g}
  tirx.sum cta %m, %x axes [1] : {r}, {t}
  tirx.sub cta %x, %x, %m : {t}, {t}, {r}
  tirx.copy cta %Y, %x : {g}, {t}
  tirx.return
}}
"""
    check_every_stage(text, lambda x: [x - x.sum(1, keepdims=True)], rtol=1e-5, atol=1e-5)
