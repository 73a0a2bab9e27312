"""tma_auto with config cta_mask (dispatch/tma_multicast.py, cluster_masks.py): numpy == tile
interpreter == SIMT interpreter after every pass with the boxes shared among the CTAs of each
mask and multicast (the whole cluster; the rows of a 2x2 cluster, each CTA of a pair issuing a
slice of the box), the code builds for sm_90a; the masks that cannot work, each refused with
what to write; rings written by multicast copies (their stages released to the CTAs that
wrote them), by multicast and plain copies both."""

from __future__ import annotations

from pathlib import Path

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


# a 2x2 cluster whose rows share a 64x64 f16 tile (one 64-row box: each CTA of a row issues 32
# rows of it to the row's mask); CTA (x, y) writes the tile to O[x + 2y]
ROWS = """tirx.kernel @rows(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<4x64x64xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {{
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %row = {row}
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x64xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {{cta_mask = {mask}}} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  %y2 = arith.muli %by, %c2 : index
  %r = arith.addi %y2, %bx : index
  %o3 = tirx.slice %O[%r, 0, 0] [1, 64, 64] : !tirx.buffer<4x64x64xf16, global> -> !tirx.buffer<1x64x64xf16, global>
  %o = tirx.reshape %o3 : !tirx.buffer<1x64x64xf16, global> -> !tirx.buffer<64x64xf16, global>
  tirx.copy cta %o, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}}
"""
BY_ROW = "arith.muli %by, %c64 : index"
ROW_MASKS = "array<i64: 3, 3, 12, 12>"


def _rows(row=BY_ROW, mask=ROW_MASKS) -> str:
    return ROWS.format(row=row, mask=mask)


def test_a_row_of_a_2x2_cluster_shares_a_box_each_cta_issuing_a_slice():
    def reference(a):
        tiles = [a[y * 64:y * 64 + 64, 64:128] for y in (0, 1)]
        return [np.stack([tiles[0], tiles[0], tiles[1], tiles[1]])]

    final = check_every_stage(_rows(), reference, arch="sm_90a", name="rows")
    casts = [op for op in final.walk() if op.name == "ptx.cp_async_bulk_tensor_g2s_multicast"]
    assert len(casts) == 2  # the box's two 32-row slices, member 0 and member 1 of each row
    kernel = next(op for op in final.walk() if op.name == "tirx.kernel")
    maps = kernel.attributes["cuda.host_tensor_maps"].data
    assert list(maps[0].data["box"].get_values()) == [32, 64]


@pytest.mark.parametrize("text, reason", [
    (_cast(row="arith.muli %bx, %c64 : index"),
     "differs between the CTAs of a multicast group"),
    (_rows(row="arith.muli %bx, %c64 : index"),
     "differs between the CTAs of a multicast group .dim 0's offset depends on %bx"),
    (_cast(n=4, mask=3), "the CTA of rank 2 is not in its own cta_mask 0b11: .*.cta_mask = 15."),
    (_cast(mask=7), "names CTAs outside the cluster of 2 .ranks 0..1: masks below 4."),
    (_rows(mask="array<i64: 3, 3, 12>"), "lists 3 masks; the cluster has 4 CTAs"),
    (_rows(mask="array<i64: 3, 6, 12, 12>"),
     "rank 0 multicasts to rank 1 .0b11. but rank 1's mask is 0b110"),
    (_rows(mask="array<i64: 1, 14, 14, 14>"), "groups of 1 and 3 CTAs"),
    (_rows(mask='"rows"'), "must be an integer .the mask of every CTA. or array<i64"),
    (_cast(grid=3, n=3, mask=7), "64 rows do not cut into 3 slices of whole 8-row atoms"),
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
    """Both rings keep the producer/consumer split; B's stages are written by both CTAs, so
    its empty barriers count the consumer threads of both (256 consumer threads: 2 x 128)."""
    from tirx_mlir.backends.cuda.dispatch.tma_ring import _pipelined, stage_writers

    kernel, allocs = _example_kernel()
    assert _pipelined(kernel, allocs["sa"]) and _pipelined(kernel, allocs["sb"])
    assert stage_writers(kernel, allocs["sa"]) is None
    assert stage_writers(kernel, allocs["sb"]) == (0b11, 0b11)


def test_the_writers_of_a_ring_are_the_union_of_its_copies_groups():
    """A ring filled along the rows and along the columns of a 2x2 cluster is written, in CTA
    r, by its row and its column (3 CTAs each); one filled by a row multicast and a plain copy
    by the row."""
    from tirx_mlir.backends.cuda.dispatch.tma_ring import stage_writers
    from tirx_mlir.dialects.tirx.kernel import kernels
    from tirx_mlir.located_parser import parse_module

    text = (Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" /
            "gemm_multicast_2x2_sm90a.mlir").read_text().replace("%sbs, %b", "%sas, %b")
    kernel = kernels(parse_module(text, "gemm"))[0]
    sa = next(op.result for op in kernel.walk() if op.name == "tirx.alloc")
    assert stage_writers(kernel, sa) == (0b0111, 0b1011, 0b1101, 0b1110)
    plain = text.replace(" config {cta_mask = array<i64: 5, 10, 5, 10>}", "")
    kernel = kernels(parse_module(plain, "gemm"))[0]
    sa = next(op.result for op in kernel.walk() if op.name == "tirx.alloc")
    assert stage_writers(kernel, sa) == (0b0011, 0b0011, 0b1100, 0b1100)


# gemm_multicast_sm90a with one ring for both operands: stage s holds A's tile (written by a
# plain copy: A differs between the CTAs) at [s, 0] and B's (multicast) at [s, 1]
ONE_RING = [
    ("  %sa = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>\n"
     "  %sb = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>",
     "  %sab = tirx.alloc : !tirx.buffer<3x2x128x64xf16, shared>"),
    ("    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> "
     "!tirx.buffer<1x128x64xf16, shared>\n"
     "    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> "
     "!tirx.buffer<1x128x64xf16, shared>\n"
     "    %sas = tirx.reshape %sa3 : !tirx.buffer<1x128x64xf16, shared> -> "
     "!tirx.buffer<128x64xf16, shared>\n"
     "    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x128x64xf16, shared> -> "
     "!tirx.buffer<128x64xf16, shared>",
     "    %sa3 = tirx.slice %sab[%s, 0, 0, 0] [1, 1, 128, 64] : !tirx.buffer<3x2x128x64xf16, "
     "shared> -> !tirx.buffer<1x1x128x64xf16, shared>\n"
     "    %sb3 = tirx.slice %sab[%s, 1, 0, 0] [1, 1, 128, 64] : !tirx.buffer<3x2x128x64xf16, "
     "shared> -> !tirx.buffer<1x1x128x64xf16, shared>\n"
     "    %sas = tirx.reshape %sa3 : !tirx.buffer<1x1x128x64xf16, shared> -> "
     "!tirx.buffer<128x64xf16, shared>\n"
     "    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x1x128x64xf16, shared> -> "
     "!tirx.buffer<128x64xf16, shared>"),
]


def _one_ring_text() -> str:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" /
            "gemm_multicast_sm90a.mlir").read_text()
    for old, new in ONE_RING:
        assert old in text
        text = text.replace(old, new)
    return text


def test_a_ring_written_by_multicast_and_plain_copies_is_pipelined():
    """One ring, its A tiles written by plain copies and its B tiles multicast: pipelined, every
    tile released to the cluster (its writers: the union of the copies' groups), numpy == tile
    == SIMT after every pass, and the final kernel neither races nor deadlocks."""
    from tirx_mlir.backends.cuda.dispatch.tma_ring import _pipelined, stage_writers
    from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
    from tirx_mlir.backends.cuda.interpreter import simulate
    from tirx_mlir.dialects.tirx.kernel import kernels
    from tirx_mlir.interpreter import KernelRunner
    from tirx_mlir.located_parser import parse_module

    text = _one_ring_text()
    kernel = kernels(parse_module(text, "gemm"))[0]
    sab = next(op.result for op in kernel.walk() if op.name == "tirx.alloc")
    assert _pipelined(kernel, sab) and stage_writers(kernel, sab) == (0b11, 0b11)

    def reference(a, b):
        return [a.astype(np.float32) @ b.astype(np.float32).T]

    final = check_every_stage(text, reference, arch="sm_90a", rtol=1e-3, atol=1e-2,
                              name="gemm_multicast_sm90a")
    loop = next(op for op in final.walk() if op.name == "scf.for" and  # the K loop (the
                any(o.name.startswith("ptx.cp_async_bulk_tensor") for o in op.walk()))  # TMA one:
    assert not any(op.name == "cuda.sync_cluster" for op in loop.walk())  # the producer's)
    names = [op.name for op in loop.walk()]
    assert names.count("ptx.cp_async_bulk_tensor_g2s") == 1  # A, plain
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") == 2  # B, a slice per CTA
    rng = np.random.default_rng(2)
    a = rng.standard_normal((256, 256)).astype(np.float16)
    b = rng.standard_normal((128, 256)).astype(np.float16)
    module = lower(text, "gemm_multicast_sm90a")
    args = bind_arguments(KernelRunner(module).kernel, [a, b])
    c = simulate(module, None, *args, racecheck=True).outputs[0]
    np.testing.assert_allclose(c, reference(a, b)[0], rtol=1e-3, atol=1e-2)


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


def test_a_multicast_load_takes_the_cache_hint():
    """config cache_hint with cta_mask: .multicast::cluster.L2::cache_hint, the policy after
    the mask; the answer unchanged, ptxas assembles it."""
    def reference(a):
        tiles = [a[c * 64:c * 64 + 64, 64:192] for c in (0, 1)]
        return [np.stack([tiles[0], tiles[0], tiles[1], tiles[1]])]

    text = _cast().replace("config {cta_mask = 3}", 'config {cta_mask = 3, cache_hint = "evict_last"}')
    final = check_every_stage(text, reference, arch="sm_90a", name="multicast")
    casts = [op for op in final.walk() if op.name == "ptx.cp_async_bulk_tensor_g2s_multicast"]
    assert len(casts) == 2 and all(op.mods().get("hint") == "L2::cache_hint" for op in casts)
    policy = next(op for op in final.walk() if op.name == "ptx.createpolicy").results[0]
    assert all(op.operands[-1] is policy for op in casts)


# --- a cta_mask known only at run time (the copy's cta_mask operand) -----------------------------

# a 2x2 cluster (rank x + 2y) loads one 64x128 f16 tile (two boxes) whatever the CTA, with a mask
# computed from the CTA's coordinates ({mask}); CTA (x, y) writes it to O[x + 2y]
RUNTIME = """tirx.kernel @runtime(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<4x64x128xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {{
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %y2 = arith.muli %by, %c2 : index
  %r = arith.addi %y2, %bx : index
  {mask}
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %a = tirx.slice %A[{row}, %c64] [64, 128] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %s, %a cta_mask %m dispatch "tma_auto" : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>, index
  %o3 = tirx.slice %O[%r, 0, 0] [1, 64, 128] : !tirx.buffer<4x64x128xf16, global> -> !tirx.buffer<1x64x128xf16, global>
  %o = tirx.reshape %o3 : !tirx.buffer<1x64x128xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy cta %o, %s : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}}
"""
ROWS_AT_RUN_TIME = "%m = arith.shli %c3, %y2 : index"  # 3 << 2y: the CTA's row
# row 0 shares (0b11), the CTAs of row 1 each alone (1 << rank): groups of 2, 1 and 1
UNEVEN_AT_RUN_TIME = """%alone = arith.shli %c1, %r : index
  %top = arith.cmpi eq, %by, %c1 : index
  %m = arith.select %top, %alone, %c3 : index"""


def _runtime(mask: str = ROWS_AT_RUN_TIME, row: str = "%c64") -> str:
    return RUNTIME.format(mask=mask, row=row)


@pytest.mark.parametrize("mask,issues", [(ROWS_AT_RUN_TIME, 2), (UNEVEN_AT_RUN_TIME, 2)])
def test_a_mask_computed_at_run_time_multicasts_each_box_once_per_group(mask, issues):
    """numpy == tile == SIMT after every pass, nvcc + ptxas: each box is issued by member
    ``box % size`` of the run-time group (computed from the mask's bits), multicast with the
    mask's value; uneven groups (2, 1, 1 CTAs) too, as nothing counts CTAs per group here."""
    def reference(a):
        return [np.stack([a[64:128, 64:192]] * 4)]

    final = check_every_stage(_runtime(mask), reference, arch="sm_90a", name="runtime")
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") == issues
    assert "ptx.cp_async_bulk_tensor_g2s" not in names


@pytest.mark.parametrize("text, reason", [
    (_runtime(row="%r"), r"differs between the CTAs of a multicast group .* \(a mask known "
                         r"only at run time: one tile for the whole cluster\)"),
    (_runtime(row="%by"), "a mask known only at run time: one tile for the whole cluster"),
    (_runtime().replace('cta_mask %m dispatch "tma_auto"',
                        'cta_mask %m dispatch "tma_auto" config {cta_mask = 15}'),
     "copy_async has a cta_mask operand and a cta_mask config; give one"),
    (_runtime().replace("tirx.copy_async cta %s, %a cta_mask %m dispatch \"tma_auto\"",
                        "tirx.copy_async warp %s, %a cta_mask %m dispatch \"tma_auto\""),
     "a multicast copy is cta-collective"),
    (_runtime().replace(" cluster [2, 2]", ""),
     r"a cta_mask names CTAs of a cluster; add `cluster \[..\]` to kernel @runtime"),
])
def test_a_run_time_mask_declines(text, reason):
    with pytest.raises(Exception, match=reason):
        lower(text, "runtime")


def test_a_run_time_mask_is_not_dropped_by_cp_async():
    """Without ``dispatch "tma_auto"`` on an sm_90a kernel, ldgsts (priority 20) declines the
    operand, and tma_auto takes the copy."""
    text = _runtime().replace(' dispatch "tma_auto"', "")
    final = lower(text, "runtime")
    names = [op.name for op in final.walk()]
    assert "ptx.cp_async_bulk_tensor_g2s_multicast" in names and "ptx.cp_async" not in names
