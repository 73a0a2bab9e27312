"""copy_async tma_auto through the cuda pipeline: numpy == tile interpreter == SIMT interpreter
after every pass (the SIMT interpreter reads the global tensor through the host-built tensor
map), the printed code compiles for sm_90a; and the reasons it declines."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing import cuda_compile
from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_testing.tma_kernels import SYNC, store_kernel
from tirx_mlir.diagnostics import TirxError



@pytest.mark.parametrize("rows, cols", [(64, 128), (32, 64), (16, 32), (8, 16), (64, 8)])
def test_tma_into_each_swizzle(rows, cols):
    """128B (2 column blocks, and 1), 64B, 32B and an unswizzled 16-byte row."""
    final = check_every_stage(SYNC.format(r=rows, c=cols),
                              lambda a: [a[64:64 + rows, 64:64 + cols]], arch="sm_90a")
    assert "cp_async_bulk_tensor_g2s" in str(final)


def _declines(text: str, reason: str) -> None:
    with pytest.raises(TirxError, match=reason):
        lower(text)


def test_declines_a_transposed_source():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %t = tirx.transpose %A [1, 0] : !tirx.buffer<64x64xf16, global> -> !tirx.buffer<64x64xf16, global>
  tirx.copy_async cta %s, %t dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", "unit-stride rectangular slice of a kernel parameter")


def test_declines_part_of_a_tile():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %h = tirx.slice %s[0, 0] [64, 64] : !tirx.buffer<64x128xf16, shared> -> !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %h, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", r"one whole \[64, 128\] tile")


def test_declines_a_one_column_tile_saying_why():
    """A [4, 1] column (found by tests/property/cuda_valid_campaign.py: the decline said the
    tile's columns must run along the tensor's last dim, which its one column does)."""
    _declines("""tirx.kernel @k(%A: !tirx.buffer<4x1xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<4x1xf16, shared>
  tirx.copy_async cta %s, %A dispatch "tma_auto" : !tirx.buffer<4x1xf16, shared>, !tirx.buffer<4x1xf16, global>
  tirx.return
}
""", r"a tile of one column: .* each row of this tile is 2 bytes; widen")


def test_declines_before_sm90():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", "needs sm_90 or newer")


# --- stores and reductions (shared -> global) -----------------------------------------------------

def _halves(a, rows):
    return np.hstack([a[:rows], a[rows:]])


def sass_opcodes(module, arch="sm_90a") -> set[str]:
    """The SASS opcode families of the module's printed PTX, assembled by ptxas."""
    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    return {op.split(".")[0] for op in cuda_compile.ptx_sass_opcodes(emit_ptx(module), arch)}


@pytest.mark.parametrize("rows, cols", [(64, 128), (32, 64), (16, 32), (8, 16), (64, 8)])
def test_tma_store_from_each_swizzle(rows, cols):
    """The tile written through the generic proxy, fenced, stored by thread 0 as boxes of its
    swizzle (128B in 2 column blocks and 1, 64B, 32B, unswizzled); every output element."""
    final = check_every_stage(store_kernel(rows, cols), lambda a: [_halves(a, rows)],
                              arch="sm_90a")
    text = str(final)
    assert text.count("ptx.fence_proxy_async \"shared::cta\"") == 1
    assert "cp_async_bulk_tensor_s2g" in text and "cp_async_bulk_wait_group 0" in text
    assert "UTMASTG" in sass_opcodes(final)


@pytest.mark.parametrize("reduce, fn", [("add", np.add), ("min", np.minimum),
                                        ("max", np.maximum)])
def test_tma_reduce_into_global(reduce, fn):
    """config use_tma_reduce: O = B (generic stores), then O op= the tile through the TMA."""
    final = check_every_stage(store_kernel(32, 32, "f32", reduce=reduce),
                              lambda a, b: [fn(b, _halves(a, 32))], arch="sm_90a")
    text = str(final)
    assert f'ptx.cp_reduce_async_bulk_tensor "2d.{reduce}"' in text
    assert "ptx.fence_proxy_async\n" in text  # every space: the TMA reads what stores wrote
    assert "UTMAREDG" in sass_opcodes(final)


def test_tma_reduce_f16():
    check_every_stage(store_kernel(64, 64, "f16", reduce="add"),
                      lambda a, b: [(b.astype(np.float32) + _halves(a, 64)).astype(np.float16)],
                      arch="sm_90a", rtol=1e-3, atol=1e-3)


def test_tma_store_at_warpgroup_scope():
    """The warpgroup fences, meets on its own named barrier, its thread 0 issues."""
    final = check_every_stage(store_kernel(64, 64, scope="warpgroup"),
                              lambda a: [_halves(a, 64)], arch="sm_90a")
    text = str(final)
    assert text.count("cuda.sync_warpgroup barrier 1 per_warpgroup") == 2
    assert "UTMASTG" in sass_opcodes(final)


def test_a_reduction_must_be_add_min_or_max():
    with pytest.raises(Exception, match="use_tma_reduce must be one of 'add', 'min', 'max'"):
        lower(store_kernel(32, 32, "f32", reduce="mul"))


def test_a_load_does_not_reduce():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %A dispatch "tma_auto" config {use_tma_reduce = "add"} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", "reduces shared -> global; this copy loads")


# --- tma_explicit: one call, one box ---------------------------------------------------------------

EXPLICIT_3D = """tirx.kernel @ex(%A: !tirx.buffer<4x64x{c}xf16, global>) -> (%O: !tirx.buffer<2x64x{c}xf16, global>)
    grid [2] threads [128] target "cuda -arch=sm_90a" {{
  %cta = tirx.cta_id x : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %k = arith.addi %cta, %c1 : index
  %s = tirx.alloc : !tirx.buffer<64x{c}xf16, shared>
  %a = tirx.slice %A[%k, %c0, %c0] [1, 64, {c}] : !tirx.buffer<4x64x{c}xf16, global> -> !tirx.buffer<1x64x{c}xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_explicit" : !tirx.buffer<64x{c}xf16, shared>, !tirx.buffer<1x64x{c}xf16, global>
  %o = tirx.slice %O[%cta, %c0, %c0] [1, 64, {c}] : !tirx.buffer<2x64x{c}xf16, global> -> !tirx.buffer<1x64x{c}xf16, global>
  tirx.copy_async cta %o, %s dispatch "tma_explicit" : !tirx.buffer<1x64x{c}xf16, global>, !tirx.buffer<64x{c}xf16, shared>
  tirx.return
}}
"""


@pytest.mark.parametrize("cols, swizzle", [(64, "128B"), (32, "64B"), (16, "32B")])
def test_tma_explicit_is_one_box_of_the_region(cols, swizzle):
    """A rank-3 region [1, 64, cols] at (k, 0, 0): globalDim the tensor's, box the region's
    extent, coordinates its start; one load and one store instruction."""
    final = check_every_stage(EXPLICIT_3D.format(c=cols), lambda a: [a[1:3]], arch="sm_90a")
    text = str(final)
    assert text.count("cp_async_bulk_tensor_g2s \"3d.") == 1
    assert text.count("cp_async_bulk_tensor_s2g \"3d\"") == 1
    assert f'box = array<i64: 1, 64, {cols}>, swizzle = "{swizzle}"' in text


def test_tma_explicit_declines_a_tile_wider_than_its_swizzle():
    _declines(store_kernel(64, 128, variant="tma_explicit"),
              "the box's inner dim spans 256 bytes, the shared tile's 128B swizzle 128")


def test_tma_explicit_declines_a_box_over_256():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<512x8xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<512x8xf16, shared>
  tirx.copy_async cta %s, %A dispatch "tma_explicit" : !tirx.buffer<512x8xf16, shared>, !tirx.buffer<512x8xf16, global>
  tirx.return
}
""", r"every extent at most 256, the region is \[512, 8\]")


# --- config oob: the tensor map's fill of elements outside the tensor ------------------------------


def test_oob_nan_builds_the_map_with_the_nan_fill_and_the_interpreter_reads_it():
    """``config {oob = "nan"}``: the host map is recorded and encoded with the NaN fill
    (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA); in bounds the copy is the tile level's (every stage); a box reaching
    past the tensor reads NaN through it in the SIMT interpreter, zeros through the default."""
    from tirx_mlir.backends.cuda.host_tensor_maps import (bind_arguments, encode_for_interpreter,
                                                          host_tensor_maps)
    from tirx_mlir.backends.cuda.interpreter import simulate
    from tirx_mlir.backends.cuda.interpreter.tensor_map import decode

    zero = SYNC.format(r=64, c=64)
    nan = zero.replace('dispatch "tma_auto" :', 'dispatch "tma_auto" config {oob = "nan"} :')
    assert nan != zero
    final = check_every_stage(nan, lambda a: [a[64:128, 64:128]], arch="sm_90a", name="tma")
    kernel = next(op for op in final.walk() if op.name == "tirx.kernel")
    (m,) = host_tensor_maps(kernel)
    assert m.oob == "nan" and 'oob = "nan"' in str(final)
    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float16)
    assert decode(bind_arguments(kernel, [a])[m.param]).nan_fill
    # the map encoded over the first 100 rows only: CTA 1's box (rows 64..127) reaches past it
    outs = {}
    for text, fill in ((nan, "nan"), (zero, "zero")):
        module = lower(text, "tma", arch="sm_90a")
        k = next(op for op in module.walk() if op.name == "tirx.kernel")
        assert host_tensor_maps(k)[0].oob == fill
        args = bind_arguments(k, [a], encode=lambda arr, mp: encode_for_interpreter(arr[:100],
                                                                                   mp))
        outs[fill] = simulate(module, "tma", *args).outputs[0]
    np.testing.assert_array_equal(outs["zero"][:36], a[64:100, 64:128])
    assert np.isnan(outs["nan"][36:]).all() and (outs["zero"][36:] == 0).all()


def _hinted(text: str, hint: str) -> str:
    """``text`` with its TMA copy given ``config cache_hint = hint`` (next to any config)."""
    if 'config {use_tma_reduce' in text:
        return text.replace("config {use_tma_reduce", f'config {{cache_hint = "{hint}", '
                                                       "use_tma_reduce")
    return text.replace('dispatch "tma_auto"', f'dispatch "tma_auto" config {{cache_hint = '
                                               f'"{hint}"}}')


def _policies(module) -> list[str]:
    return [op.mods()["primary"] for op in module.walk() if op.name == "ptx.createpolicy"]


@pytest.mark.parametrize("hint", ["evict_first", "evict_last"])
def test_cache_hint_on_a_load_makes_one_policy_for_its_boxes(hint):
    """config cache_hint: the issuing thread makes the L2 policy once (createpolicy), each box
    takes it through .L2::cache_hint; the answer is unchanged and ptxas takes it (UTMALDG)."""
    final = check_every_stage(_hinted(SYNC.format(r=64, c=128), hint),
                              lambda a: [a[64:128, 64:192]], arch="sm_90a")
    assert _policies(final) == [f"L2::{hint}"]
    boxes = [op for op in final.walk() if op.name == "ptx.cp_async_bulk_tensor_g2s"]
    assert len(boxes) == 2 and all(op.mods().get("hint") == "L2::cache_hint" for op in boxes)
    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    ptx = emit_ptx(final)
    assert f"createpolicy.fractional.L2::{hint}.b64" in ptx
    assert ptx.count("mbarrier::complete_tx::bytes.L2::cache_hint") == 2
    assert "UTMALDG" in sass_opcodes(final)


def test_cache_hint_on_a_store_and_a_reduction():
    final = check_every_stage(_hinted(store_kernel(64, 64), "evict_first"),
                              lambda a: [_halves(a, 64)], arch="sm_90a")
    assert _policies(final) == ["L2::evict_first"]
    assert all(op.mods().get("hint") == "L2::cache_hint" for op in final.walk()
               if op.name == "ptx.cp_async_bulk_tensor_s2g")
    assert "UTMASTG" in sass_opcodes(final)
    final = check_every_stage(_hinted(store_kernel(32, 32, "f32", reduce="add"), "evict_last"),
                              lambda a, b: [b + _halves(a, 32)], arch="sm_90a")
    assert [op.mods().get("hint") for op in final.walk()
            if op.name == "ptx.cp_reduce_async_bulk_tensor"] == ["L2::cache_hint"]
    assert "UTMAREDG" in sass_opcodes(final)


def test_cache_hint_values():
    with pytest.raises(TirxError, match='config cache_hint must be one of "evict_first", '
                                        '"evict_last", "evict_normal", "evict_unchanged", got '
                                        '"keep"'):
        lower(_hinted(SYNC.format(r=64, c=128), "keep"))


def test_prefetch_tensormap_at_kernel_entry():
    """config prefetch_tensormap: thread 0 prefetches the map at kernel entry, before the
    copy; the answer is unchanged; ptxas takes it (UTMACCTL); without the config, none."""
    one = SYNC.format(r=64, c=128).replace('dispatch "tma_auto"', 'dispatch "tma_auto" config '
                                           '{prefetch_tensormap = true}')
    final = check_every_stage(one, lambda a: [a[64:128, 64:192]], arch="sm_90a")
    names = [op.name for op in final.walk()]
    assert names.count("ptx.prefetch_tensormap") == 1
    assert names.index("ptx.prefetch_tensormap") < names.index("ptx.cp_async_bulk_tensor_g2s")
    assert "UTMACCTL" in sass_opcodes(final)
    plain = lower(SYNC.format(r=64, c=128))
    assert "ptx.prefetch_tensormap" not in str(plain)


def test_the_store_needs_the_proxy_fence_the_dispatch_emits():
    """The TMA store lowered, its ptx.fence_proxy_async removed: the store reads the tile the
    threads wrote through the generic proxy, a located [proxy] error naming both ops."""
    from tirx_testing.cuda_every_stage import run
    from tirx_testing.trn_lowering import random_inputs
    from tirx_mlir.interpreter.runtime import InterpretError
    from tirx_mlir.located_parser import parse_module

    text = store_kernel(64, 64)
    final = lower(text, "store", arch="sm_90a")
    (fence,) = [op for op in final.walk() if op.name == "ptx.fence_proxy_async"]
    fence.detach()
    fence.erase()
    with pytest.raises(InterpretError, match=r"\[proxy\] ptx.cp_async_bulk_tensor_s2g: reads "
                                             r"shared offset 0 \(%s\[0\]\) .* by the ptx.st at "
                                             r"store:\d+:\d+ in thread \(0,0,0\)"):
        run(final, random_inputs(parse_module(text, "store"), 0))
