"""tma_auto with config cta_mask (dispatch/tma_multicast.py): numpy == tile interpreter == SIMT
interpreter after every pass with the boxes split among the cluster's CTAs and multicast, the
code builds for sm_90a; and the reasons it declines (a tile that differs between the CTAs, a
mask that is not the whole cluster, no cluster, a pipelined ring)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.diagnostics import TirxError

# every CTA of a cluster of {n} loads the same 64x128 f16 tile (two 128-byte column blocks:
# two boxes) at row offset {row}, and writes it to its own slice of the output
CAST = """tirx.kernel @cast(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<{grid}x64x128xf16, global>)
    grid [{grid}] threads [128] {launch} target "cuda -arch=sm_90a" {{
  %bx = tirx.cta_id x : index
  %cl = {cluster_id}
  %c64 = arith.constant 64 : index
  %row = {row}
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 128] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {{cta_mask = {mask}}} : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  %o3 = tirx.slice %O[%bx, 0, 0] [1, 64, 128] : !tirx.buffer<{grid}x64x128xf16, global> -> !tirx.buffer<1x64x128xf16, global>
  %o = tirx.reshape %o3 : !tirx.buffer<1x64x128xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy cta %o, %s : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}}
"""
UNIFORM_ROW = "arith.muli %cl, %c64 : index"


def _cast(grid=4, n=2, mask=3, row=UNIFORM_ROW, cluster=True) -> str:
    return CAST.format(grid=grid, launch=f"cluster [{n}]" if cluster else "", mask=mask,
                       row=row, cluster_id="tirx.cluster_id x : index" if cluster else
                       "arith.constant 0 : index")


def test_two_boxes_one_per_cta_multicast_to_the_cluster():
    def reference(a):
        tiles = [a[c * 64:c * 64 + 64, 64:192] for c in (0, 1)]  # cluster c's tile
        return [np.stack([tiles[0], tiles[0], tiles[1], tiles[1]])]

    final = check_every_stage(_cast(), reference, arch="sm_90a", name="multicast")
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") == 2
    assert "ptx.cp_async_bulk_tensor_g2s" not in names
    assert names.count("cuda.cluster_block_rank") >= 1


@pytest.mark.parametrize("text, reason", [
    (_cast(row="arith.muli %bx, %c64 : index"), "differs between the CTAs of the cluster"),
    (_cast(n=4, mask=3), "must name every CTA of the cluster of 4: 15"),
    (_cast(cluster=False), "has no cluster launch"),
])
def test_declines(text, reason):
    with pytest.raises(TirxError, match=reason):
        lower(text, "cast")


def _example_kernel(replace: tuple[str, str] | None = None):
    from pathlib import Path

    from tirx_mlir.dialects.tirx.kernel import kernels
    from tirx_mlir.located_parser import parse_module

    text = (Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" /
            "gemm_multicast_sm90a.mlir").read_text()
    if replace is not None:
        text = text.replace(*replace)
    kernel = kernels(parse_module(text, "gemm"))[0]
    allocs = {op.result.name_hint: op.result for op in kernel.walk()
              if op.name == "tirx.alloc"}
    return kernel, allocs


def test_a_multicast_ring_is_pipelined_with_the_cluster_s_consumers():
    """Both rings keep the producer/consumer split; B's empty barriers count the consumer
    threads of both CTAs (256 consumer threads: 2 x 128)."""
    from tirx_mlir.backends.cuda.dispatch.tma_ring import (_pipelined, consumer_threads,
                                                           multicast_ctas)

    kernel, allocs = _example_kernel()
    assert _pipelined(kernel, allocs["sa"]) and _pipelined(kernel, allocs["sb"])
    assert multicast_ctas(kernel, allocs["sa"]) == 1
    assert multicast_ctas(kernel, allocs["sb"]) == 2
    assert consumer_threads(kernel, allocs["sb"], 2) == 2 * consumer_threads(kernel, allocs["sa"])


def test_a_ring_written_by_multicast_and_plain_copies_is_not_pipelined():
    """Its stages would be filled by one CTA at some uses and by the cluster at others: every
    thread waits for each copy instead (the ring is not a producer/consumer one)."""
    from tirx_mlir.backends.cuda.dispatch.tma_ring import _pipelined

    extra = ("    tirx.gemm_async cta %acc, %sas, %sbs accum",
             "    tirx.copy_async cta %sbs, %b dispatch \"tma_auto\" : "
             "!tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>\n"
             "    tirx.gemm_async cta %acc, %sas, %sbs accum")
    kernel, allocs = _example_kernel(extra)
    assert _pipelined(kernel, allocs["sa"]) and not _pipelined(kernel, allocs["sb"])


def test_declines_a_multicast_not_reached_by_every_cta():
    """The copy meets the whole cluster at a barrier: at warp scope, or under a condition on the
    CTA's id, some CTAs would never reach it (a hang); both are declined with the reason."""
    warp = _cast().replace("tirx.copy_async cta %s", "tirx.copy_async warp %s")
    with pytest.raises(TirxError, match="cta-collective"):
        lower(warp)
    guarded = _cast().replace(
        "  tirx.copy_async cta %s",
        "  %c0 = arith.constant 0 : index\n  %first = arith.cmpi eq, %bx, %c0 : index\n"
        "  scf.if %first {\n  tirx.copy_async cta %s").replace(
        "!tirx.buffer<64x128xf16, global>\n  %o3", "!tirx.buffer<64x128xf16, global>\n  }\n  %o3")
    with pytest.raises(TirxError, match="differ between the CTAs of the cluster"):
        lower(guarded)
