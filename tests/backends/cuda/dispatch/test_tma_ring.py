"""The TMA/wgmma ring protocol's static side: which views are stage tiles (and which stage),
and which rings are pipelined (TMA writers, gemm_async readers of one scope)."""

from __future__ import annotations

from tirx_mlir.backends.cuda.dispatch import tma_ring
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.located_parser import parse_module

TEXT = """tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) -> (%C: !tirx.buffer<64x64xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c1 = arith.constant 1 : index
  %ring = tirx.alloc : !tirx.buffer<3x64x64xf16, shared>
  %other = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  %s1 = tirx.slice %ring[%c1, 0, 0] [1, 64, 64] : !tirx.buffer<3x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
  %t = tirx.reshape %s1 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
  %half = tirx.slice %other[0, 0] [64, 32] : !tirx.buffer<64x64xf16, shared> -> !tirx.buffer<64x32xf16, shared>
  tirx.copy_async cta %t, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy_async cta %other, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.gemm_async cta %acc, %t, %other : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  tirx.copy cta %C, %other : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}
"""


class _Ctx:
    def __init__(self, kernel):
        self.kernel = kernel
        self.shared_state = {}


def _parts():
    module = parse_module(TEXT, "k.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    allocs = {op.result.name_hint: op.result for op in kernel.walk() if isinstance(op, AllocOp)}
    views = {op.results[0].name_hint: op.results[0] for op in kernel.walk() if op.results}
    return kernel, allocs, views


def test_stage_views():
    kernel, allocs, views = _parts()
    stage = tma_ring.stage_view(views["t"])
    assert stage.alloc is allocs["ring"] and stage.stages == 3 and stage.tile == (64, 64)
    assert stage.stage.is_const() and stage.stage.const == 1
    whole = tma_ring.stage_view(allocs["other"])
    assert whole.stages == 1 and whole.stage.const == 0
    assert "one whole [64, 64] tile" in tma_ring.stage_view(views["half"])


def test_pipelined_rings_are_read_by_gemm_async_only():
    kernel, allocs, _ = _parts()
    ctx = _Ctx(kernel)
    assert tma_ring.pipelined(ctx, allocs["ring"])
    assert not tma_ring.pipelined(ctx, allocs["other"])       # a tirx.copy reads it too
    # decided once: dispatching (erasing) the ops later does not change the answer
    for op in [o for o in kernel.walk() if isinstance(o, T.CopyAsyncOp)]:
        op.detach()
    assert tma_ring.pipelined(ctx, allocs["ring"])
    assert tma_ring.consumer_threads(kernel, allocs["ring"]) == 128
