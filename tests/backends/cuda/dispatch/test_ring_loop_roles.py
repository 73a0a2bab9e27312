"""dispatch/ring_loop_roles.py: which ring loops holding register code split by role (their
register tiles held by the consumer warpgroups only) and which GEMM of such a loop commits
without a wait (nothing touches its registers before the next GEMM's wait)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from xdsl.dialects import scf

from tirx_mlir.backends.cuda.dispatch import ring_loop_roles as roles
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.kernel import kernels
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

GEN = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / "gen_flash_attention.py"
ACC = "S[(1,1,4,2,8,8,4,2):(4@warpid,32,1@warpid,2,4@laneid,4,1@laneid,1)]"


def _ring(length: int = 192) -> str:
    return subprocess.run([sys.executable, str(GEN), "sm_90a_ring", str(length)],
                          capture_output=True, text=True, check=True).stdout


def _laid_out(text: str):
    """The kernel after cuda-default-layout (what dispatch decides on) and a context for it."""
    module = parse_module(text, "flash_attention_ring_sm90a")
    for p in get_pipeline("cuda", arch="sm_90a").passes[:2]:  # check-bounds, default-layout
        p.apply(None, module)
    (kernel,) = kernels(module)
    return kernel, SimpleNamespace(kernel=kernel, shared_state={})


def _loop(kernel) -> scf.ForOp:
    return next(op for op in kernel.walk() if isinstance(op, scf.ForOp))


def _gemms(kernel) -> list:
    return [op for op in kernel.walk() if isinstance(op, T.GemmAsyncOp)]


def test_the_flash_attention_loop_splits_and_defers_p_v_to_the_next_s():
    kernel, ctx = _laid_out(_ring())
    s, pv = _gemms(kernel)
    assert roles.register_ring_loop(ctx, s) is _loop(kernel)
    assert roles.deferred(ctx, pv) and not roles.deferred(ctx, s)
    (slot, view), = roles.retired_by(ctx, s)  # S's wait releases P V's V stage
    assert slot == 0 and view.stages == 2 and roles.retired_by(ctx, pv) == []


def test_an_op_touching_o_before_the_next_s_keeps_p_v_waiting():
    """O rescaled after P V (in the same iteration) reads the accumulator the group in flight
    owns: P V must wait at once."""
    text = _ring().replace("    tirx.copy cta %m, %mnew :",
                           f"    tirx.mul cta %o, %o, %scale : !tirx.buffer<64x64xf32, local, "
                           f"{ACC}>, !tirx.buffer<64x64xf32, local, {ACC}>, f32\n"
                           f"    tirx.copy cta %m, %mnew :")
    kernel, ctx = _laid_out(text)
    s, pv = _gemms(kernel)
    assert roles.register_ring_loop(ctx, s) is not None
    assert not roles.deferred(ctx, pv) and roles.retired_by(ctx, s) == []


def test_a_register_tile_the_producer_holds_part_of_keeps_the_loop_whole():
    """A row tile spread over all 256 threads (warpid 0..7): the producer warpgroup holds rows
    of it, so its loop cannot drop the softmax."""
    row = "S[(4,2,8,1):(1@warpid,1,4@laneid,1)] + R[4:1@laneid]"
    wide = "S[(8,8,1):(1@warpid,4@laneid,1)] + R[4:1@laneid]"
    text = _ring().replace(f"%rs = tirx.alloc : !tirx.buffer<64x1xf32, local, {row}>",
                           f"%rs = tirx.alloc : !tirx.buffer<64x1xf32, local, {wide}>")
    text = text.replace(f"tirx.sum cta %rs, %s : !tirx.buffer<64x1xf32, local, {row}>",
                        f"tirx.sum cta %rs, %s : !tirx.buffer<64x1xf32, local, {wide}>")
    text = text.replace(f"tirx.fma cta %l, %l, %alpha, %rs : !tirx.buffer<64x1xf32, local, "
                        f"{row}>, !tirx.buffer<64x1xf32, local, {row}>, !tirx.buffer<64x1xf32, "
                        f"local, {row}>, !tirx.buffer<64x1xf32, local, {row}>",
                        f"tirx.fma cta %l, %l, %alpha, %rs : !tirx.buffer<64x1xf32, local, "
                        f"{row}>, !tirx.buffer<64x1xf32, local, {row}>, !tirx.buffer<64x1xf32, "
                        f"local, {row}>, !tirx.buffer<64x1xf32, local, {wide}>")
    assert wide in text
    from tirx_mlir.backends.cuda.layout.partition import RegisterPartition
    kernel, ctx = _laid_out(text)
    rs = next(op for op in kernel.walk() if isinstance(op, T.SumOp)).dst
    assert RegisterPartition(rs.type.get_layout(), (64, 1)).threads["warpid"] == 8
    s, pv = _gemms(kernel)
    assert roles.register_ring_loop(ctx, s) is None and not roles.deferred(ctx, pv)


def test_consumer_held_layouts():
    kernel, _ = _laid_out(_ring())
    o = next(op for op in kernel.walk() if isinstance(op, T.GemmAsyncOp)).c
    assert roles._consumer_held(o, 1)          # warps 0..3: the consumer warpgroup
    assert not roles._consumer_held(o, 0)
    sq = _gemms(kernel)[0].a                    # a shared tile is no register code
    assert not roles._consumer_held(sq, 1)


def test_a_register_tile_offset_into_the_producers_warps_is_not_consumer_held():
    """``+ 4@warpid`` puts the tile on warps 4..7 (the producer warpgroup behind one consumer):
    its extent alone (4 warps) would pass for the consumers'."""
    fragment = "S[(4,2,8,1):(1@warpid,1,4@laneid,1)] + R[4:1@laneid]"
    module = parse_module(f"""
tirx.kernel @k(%A: !tirx.buffer<64x1xf32, global>) -> (%B: !tirx.buffer<64x1xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {{
  %a = tirx.alloc : !tirx.buffer<64x1xf32, local, {fragment}>
  %b = tirx.alloc : !tirx.buffer<64x1xf32, local, {fragment} + 4@warpid>
  tirx.return
}}""")
    first, producers = (op.results[0] for op in module.walk() if op.name == "tirx.alloc")
    assert roles._consumer_held(first, 1)
    assert not roles._consumer_held(producers, 1)
    assert roles._consumer_held(producers, 2)   # warps 4..7 are the second consumer's
