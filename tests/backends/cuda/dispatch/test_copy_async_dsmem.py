"""copy_async dsmem and cluster_sync barrier_cluster through the cuda pipeline: numpy == tile
interpreter == SIMT interpreter after every pass, the printed code builds for sm_90a; the
chunking (one copy, or a loop over rows), the reasons dsmem declines, and the destination's
shared bytes kept for the whole kernel."""

from __future__ import annotations

import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.backends.cuda.dialects.cuda.shared import CLUSTER_VISIBLE_ATTR
from tirx_mlir.diagnostics import TirxError

SWAP = """tirx.kernel @swap(%A: !tirx.buffer<2x{rows}x64x{t}, global>) -> (%B: !tirx.buffer<2x{rows}x{cols}x{t}, global>)
    grid [2] threads [128] cluster [2] target "cuda -arch={arch}" {{
  %r = tirx.cta_id_in_cluster x : index
  %c1 = arith.constant 1 : index
  %peer = arith.xori %r, %c1 : index
  %s = tirx.alloc : !tirx.buffer<{rows}x64x{t}, shared>
  %d = tirx.alloc : !tirx.buffer<{rows}x64x{t}, shared>
  %a3 = tirx.slice %A[%r, 0, 0] [1, {rows}, 64] : !tirx.buffer<2x{rows}x64x{t}, global> -> !tirx.buffer<1x{rows}x64x{t}, global>
  %a = tirx.reshape %a3 : !tirx.buffer<1x{rows}x64x{t}, global> -> !tirx.buffer<{rows}x64x{t}, global>
  tirx.copy cta %s, %a : !tirx.buffer<{rows}x64x{t}, shared>, !tirx.buffer<{rows}x64x{t}, global>
  %sv = tirx.slice %s[0, {c0}] [{rows}, {cols}] : !tirx.buffer<{rows}x64x{t}, shared> -> !tirx.buffer<{rows}x{cols}x{t}, shared>
  %dv = tirx.slice %d[0, {c0}] [{rows}, {cols}] : !tirx.buffer<{rows}x64x{t}, shared> -> !tirx.buffer<{rows}x{cols}x{t}, shared>
  tirx.copy_async cta %dv, %sv remote_cta %peer : !tirx.buffer<{rows}x{cols}x{t}, shared>, !tirx.buffer<{rows}x{cols}x{t}, shared>, index
  tirx.cluster_sync cluster
  %b3 = tirx.slice %B[%r, 0, 0] [1, {rows}, {cols}] : !tirx.buffer<2x{rows}x{cols}x{t}, global> -> !tirx.buffer<1x{rows}x{cols}x{t}, global>
  %b = tirx.reshape %b3 : !tirx.buffer<1x{rows}x{cols}x{t}, global> -> !tirx.buffer<{rows}x{cols}x{t}, global>
  tirx.copy cta %b, %dv : !tirx.buffer<{rows}x{cols}x{t}, global>, !tirx.buffer<{rows}x{cols}x{t}, shared>
  tirx.return
}}
"""


def _swap(rows=32, cols=64, c0=0, t="f32", arch="sm_90a") -> str:
    return SWAP.format(rows=rows, cols=cols, c0=c0, t=t, arch=arch)


def _names(module) -> list[str]:
    return [op.name for op in module.walk()]


def test_whole_tile_is_one_bulk_copy():
    final = check_every_stage(_swap(t="f16"), lambda a: [a[::-1]], arch="sm_90a", name="swap")
    names = _names(final)
    assert names.count("ptx.cp_async_bulk_s2c") == 1
    assert "ptx.mbarrier_expect_tx" in names and "ptx.mbarrier_try_wait_parity" in names


def test_column_slice_is_a_loop_of_row_copies():
    # [32, 16] f32 of [32, 64] rows: 64-byte chunks, one per row, in a loop
    final = check_every_stage(_swap(cols=16, c0=16),
                              lambda a: [a[::-1, :, 16:32]], arch="sm_90a", name="swap_rows")
    loops = [op for op in final.walk() if op.name == "scf.for"]
    assert any("ptx.cp_async_bulk_s2c" in _names(loop) for loop in loops)
    assert _names(final).count("ptx.cp_async_bulk_s2c") == 1


def test_destination_keeps_its_bytes_for_the_whole_kernel():
    # %s is staged through %t, which is dead (after a barrier) before %d is first used: an
    # array of this CTA alone could take %t's bytes, a dsmem destination may not (the peer
    # writes it while this CTA may still be using %t)
    staged = _swap().replace(
        "  tirx.copy cta %s, %a :",
        "  %t = tirx.alloc : !tirx.buffer<32x64xf32, shared>\n"
        "  tirx.copy cta %t, %a : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, global>\n"
        "  tirx.copy cta %s, %t : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>\n"
        "  tirx.copy cta %s, %a :")
    final = check_every_stage(staged, lambda a: [a[::-1]], arch="sm_90a", name="staged",
                              compile=False)
    views = [op for op in final.walk() if op.name == "cuda.dynamic_shared"]
    marked = [v for v in views if CLUSTER_VISIBLE_ATTR in v.attributes]
    assert len(marked) == 1
    lo = marked[0].offset.value.data
    size = 32 * 64 * 4
    for other in views:
        if other is marked[0]:
            continue
        o = other.offset.value.data
        n = other.result.type.numel * 8 if "i64" in str(other.result.type) else \
            other.result.type.numel * 4
        assert o + n <= lo or lo + size <= o, "a dsmem destination shares bytes"


def test_cluster_sync_alone_is_one_cluster_barrier():
    text = """tirx.kernel @k(%A: !tirx.buffer<64xf32, global>) -> (%B: !tirx.buffer<64xf32, global>)
    grid [2] threads [64] cluster [2] target "cuda -arch=sm_90a" {
  tirx.cluster_sync cluster
  tirx.copy cta %B, %A : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>
  tirx.return
}"""
    final = check_every_stage(text, lambda a: [a], arch="sm_90a", name="sync_only")
    assert _names(final).count("cuda.sync_cluster") == 1
    assert "ptx.mbarrier_init" not in _names(final)


@pytest.mark.parametrize("cols, c0, reason", [
    (2, 0, "longest run contiguous in both tiles is 8 bytes"),
    (8, 2, "does not start on 16 bytes"),
])
def test_declines_chunks_a_bulk_copy_cannot_move(cols, c0, reason):
    with pytest.raises(TirxError, match=reason):
        lower(_swap(cols=cols, c0=c0), "swap")


def test_needs_sm90():
    with pytest.raises(TirxError, match="sm_90"):
        lower(_swap(arch="sm_80"), "swap")


@pytest.mark.parametrize("scope,threads,barrier", [("warp", 32, "cuda.sync_warp"),
                                                   ("warpgroup", 128, "cuda.sync_warpgroup")])
def test_a_warp_or_warpgroup_copies_with_its_own_barrier(scope, threads, barrier):
    """A CTA of one warp (one warpgroup) copies at warp (warpgroup) scope: the source is fenced
    and the scope meets at its own barrier, not __syncthreads, before thread 0 issues."""
    text = _swap(t="f16").replace("threads [128]", f"threads [{threads}]").replace(
        "tirx.copy_async cta %dv", f"tirx.copy_async {scope} %dv")
    final = check_every_stage(text, lambda a: [a[::-1]], arch="sm_90a", name=f"swap_{scope}")
    names = _names(final)
    fence = names.index("ptx.fence_proxy_async")
    assert names[fence + 1] == barrier or barrier in names[fence:names.index("ptx.mapa")]
    assert names.count("ptx.cp_async_bulk_s2c") == 1


def test_a_warp_scope_copy_in_a_cta_of_several_warps_is_refused():
    """Every warp would write the same peer tile: the tile interpreter refuses the program
    and dsmem declines, each saying why."""
    from tirx_testing.cuda_every_stage import run
    from tirx_mlir.interpreter.runtime import InterpretError
    from tirx_mlir.located_parser import parse_module
    import numpy as np

    text = _swap(t="f16").replace("tirx.copy_async cta %dv", "tirx.copy_async warp %dv")
    with pytest.raises(TirxError, match="a warp-scope remote copy runs once per warp, 4 times"):
        lower(text, "swap")
    with pytest.raises(InterpretError, match="a warp-scope op runs once per warp"):
        run(parse_module(text, "swap"), [np.zeros((2, 32, 64), np.float16)])
