"""Default layouts of TMA and wgmma tiles: the swizzle a TMA destination or a wgmma operand
needs, and the wgmma accumulator layout of a gemm_async C (at warpgroup scope, and split over
the consumer warpgroups at cta scope)."""

from __future__ import annotations

from tirx_mlir.backends.cuda.layout import async_defaults as ad
from tirx_mlir.backends.cuda.layout import fragments_wgmma as fw
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.located_parser import parse_module

TEXT = """tirx.kernel @k(%A: !tirx.buffer<64x32xf16, global>, %B: !tirx.buffer<64x32xf16, global>)
    -> (%C: !tirx.buffer<64x64xf32, global>) grid [1] threads [{threads}] target "cuda -arch=sm_90a" {{
  %ta = tirx.alloc : !tirx.buffer<2x64x32xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<64x32xf16, shared>
  %plain = tirx.alloc : !tirx.buffer<64x32xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  %t0 = tirx.slice %ta[0, 0, 0] [1, 64, 32] : !tirx.buffer<2x64x32xf16, shared> -> !tirx.buffer<1x64x32xf16, shared>
  %t = tirx.reshape %t0 : !tirx.buffer<1x64x32xf16, shared> -> !tirx.buffer<64x32xf16, shared>
  tirx.copy_async cta %t, %A dispatch "tma_auto" : !tirx.buffer<64x32xf16, shared>, !tirx.buffer<64x32xf16, global>
  tirx.copy cta %sb, %B : !tirx.buffer<64x32xf16, shared>, !tirx.buffer<64x32xf16, global>
  tirx.copy cta %plain, %B : !tirx.buffer<64x32xf16, shared>, !tirx.buffer<64x32xf16, global>
  tirx.gemm_async {scope} %acc, %t, %sb : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x32xf16, shared>, !tirx.buffer<64x32xf16, shared>
  tirx.return
}}
"""


def _allocs(threads=128, scope="cta"):
    module = parse_module(TEXT.format(threads=threads, scope=scope), "k.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    allocs = {op.result.name_hint: op.result for op in kernel.walk() if isinstance(op, AllocOp)}
    return kernel, allocs


def test_tma_destinations_and_wgmma_operands_get_the_widest_swizzle():
    kernel, allocs = _allocs()
    # 32 f16 columns: 64 bytes, the 64B swizzle; a ring keeps its stage dim outermost
    assert ad.shared_tile_layout(kernel, allocs["ta"]) == \
        sw.swizzled_layout((2, 64, 32), 2, sw.Swizzle.B64)
    assert ad.shared_tile_layout(kernel, allocs["sb"]) == \
        sw.swizzled_layout((64, 32), 2, sw.Swizzle.B64)
    assert ad.shared_tile_layout(kernel, allocs["plain"]) is None


def test_accumulators():
    kernel, allocs = _allocs()
    assert ad.accumulator_tile_layout(kernel, allocs["acc"]) == fw.accumulator_layout(64, 64, 1)
    kernel, allocs = _allocs(threads=256, scope="warpgroup")
    assert ad.accumulator_tile_layout(kernel, allocs["acc"]) == fw.accumulator_layout(64, 64)
    assert ad.accumulator_tile_layout(kernel, allocs["sb"]) is None
