"""tirx.copy on CUDA: vec_auto in every direction (global, shared, registers), the fallback, and
the bank-conflict counts of the shared accesses the variants emit (SIMT statistics)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.backends.cuda.interpreter.api import simulate


def _roundtrip(dtype: str, mid: str, shape=(64, 128), threads: int = 128) -> str:
    s = "x".join(map(str, shape))
    g, m = f"!tirx.buffer<{s}x{dtype}, global>", f"!tirx.buffer<{s}x{dtype}, {mid}>"
    return f"""tirx.kernel @copy(%X: {g}) -> (%Y: {g}) grid [1] threads [{threads}]
    target "cuda -arch=sm_80" {{
  %t = tirx.alloc : {m}
  tirx.copy cta %t, %X : {m}, {g}
  tirx.copy cta %Y, %t : {g}, {m}
  tirx.return
}}
"""


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("mid", ["shared", "local"])
def test_round_trip(dtype, mid):
    check_every_stage(_roundtrip(dtype, mid), lambda x: [x])


def test_row_major_shared_copies_have_no_bank_conflicts():
    module = lower(_roundtrip("f32", "shared"))
    x = np.random.default_rng(0).standard_normal((64, 128)).astype(np.float32)
    sim = simulate(module, None, x)
    np.testing.assert_array_equal(sim.outputs[0], x)
    rows = [row for row in sim.stats.ops() if row.counters.get("wavefronts")]
    assert {row.name for row in rows} == {"ptx.st", "ptx.ld"}  # 16-byte vectors only
    assert sum(row.bank_conflicts for row in rows) == 0
    # 16 bytes per thread, 512 bytes per warp access: 4 wavefronts, the minimum
    wavefronts = sum(row.counters["wavefronts"] for row in rows if row.name == "ptx.st")
    assert wavefronts == 4 * (64 * 128 * 4 // 512)


def test_a_tile_the_threads_do_not_divide_is_still_vec_auto():
    text = _roundtrip("f32", "shared", shape=(3, 5), threads=64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_every_stage(text, lambda x: [x])
    assert not any("element by element" in str(w.message) for w in caught)


def test_the_fallback_copies_element_by_element_from_one_thread_with_a_warning():
    text = _roundtrip("f32", "shared", shape=(3, 5), threads=64).replace(
        "tirx.copy cta %t, %X :", 'tirx.copy cta %t, %X dispatch "fallback" :')
    with pytest.warns(UserWarning, match="copying element by element from one thread"):
        final = check_every_stage(text, lambda x: [x])
    assert "scf.for" in str(final)


WGMMA_ACCUMULATOR = "S[(1,4,2,8,4,4,2):(16,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]"


@pytest.mark.parametrize("threads", [128, 256])
def test_a_cta_register_tile_over_warps_of_a_warpgroup_is_written_whole(threads):
    """A cta-scope tile laid over ``laneid`` and ``wid_in_wg`` (the wgmma accumulator layout):
    every warp of warpgroup 0 writes its rows (the numbering laneid + 32 (wid_in_wg + 4 wgid)),
    and with two warpgroups the second, a replica, writes nothing. The writer guard once
    allowed warp 0 only (``warpid < 1``), leaving 48 of the 64 rows unwritten."""
    t = f"!tirx.buffer<64x32xf16, local, {WGMMA_ACCUMULATOR}>"
    g = "!tirx.buffer<64x32xf16, global>"
    final = check_every_stage(f"""tirx.kernel @k(%A: {g}) -> (%C: {g}) grid [1] threads [{threads}]
    target "cuda -arch=sm_90a" {{
  %a = tirx.alloc : {t}
  tirx.copy cta %a, %A : {t}, {g}
  tirx.copy cta %C, %a : {g}, {t}
  tirx.return
}}""", lambda a: [a], arch="sm_90a", compile=False)
    assert ("arith.cmpi ult" in str(final)) == (threads == 256)


@pytest.mark.parametrize("dispatch", [None, "fallback"])
@pytest.mark.parametrize("src_shape, dst_shape", [((1, 64), (64,)), ((64,), (1, 64)),
                                                  ((1, 64), (64, 1))])
def test_a_copy_between_shapes_that_differ_in_unit_dims_moves_every_element(
        src_shape, dst_shape, dispatch):
    """The tile semantics of such a copy is a reshape; every thread once read element 0 of a
    [1, 64] global slice copied into a [64] shared tile (the broadcast rule's alignment)."""
    def ty(shape, scope):
        return f"!tirx.buffer<{'x'.join(map(str, shape))}xf32, {scope}>"
    g, s, src = "!tirx.buffer<4x64xf32, global>", ty(dst_shape, "shared"), ty(src_shape, "global")
    out = ty(dst_shape, "global")
    slice_ = "[2, 0] [1, 64]" if src_shape == (1, 64) else None
    view = (f"  %g = tirx.slice %A{slice_} : {g} -> {src}\n" if slice_ else
            f"  %r = tirx.slice %A[2, 0] [1, 64] : {g} -> !tirx.buffer<1x64xf32, global>\n"
            f"  %g = tirx.reshape %r : !tirx.buffer<1x64xf32, global> -> {src}\n")
    forced = f' dispatch "{dispatch}"' if dispatch else ""
    text = f"""tirx.kernel @k(%A: {g}) -> (%C: {out}) grid [1] threads [64]
    target "cuda -arch=sm_80" {{
  %s = tirx.alloc : {s}
{view}  tirx.copy cta %s, %g{forced} : {s}, {src}
  tirx.copy cta %C, %s : {out}, {s}
  tirx.return
}}"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback's slowness warning
        check_every_stage(text, lambda a: [a[2].reshape(dst_shape)], compile=False)


# --- vec_len (TIRx's forced vector length) ---------------------------------------------------------

def _vec_len_kernel(dtype: str, mid: str, vec_len: int, shape=(64, 128)) -> str:
    """``X`` -> ``mid`` with ``vec_len``, then back to global memory without it."""
    s = "x".join(map(str, shape))
    g, m = f"!tirx.buffer<{s}x{dtype}, global>", f"!tirx.buffer<{s}x{dtype}, {mid}>"
    return f"""tirx.kernel @copy(%X: {g}) -> (%Y: {g}) grid [1] threads [128]
    target "cuda -arch=sm_80" {{
  %t = tirx.alloc : {m}
  tirx.copy cta %t, %X config {{vec_len = {vec_len}}} : {m}, {g}
  tirx.copy cta %Y, %t : {g}, {m}
  tirx.return
}}
"""


def _global_loads(module) -> set[str]:
    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    return {line.split()[0] for line in emit_ptx(module).splitlines()
            if line.strip().startswith("ld.global")}


@pytest.mark.parametrize("dtype,mid,vec_len,loads", [
    ("f32", "shared", 1, {"ld.global.f32"}),
    ("f32", "shared", 2, {"ld.global.v2.f32"}),
    ("f32", "shared", 4, {"ld.global.v4.f32"}),
    ("f16", "shared", 2, {"ld.global.v2.b16"}),
    ("f16", "shared", 4, {"ld.global.v4.b16"}),
    ("f16", "shared", 8, {"ld.global.v4.b32"}),  # packed words
    ("f32", "local", 2, {"ld.global.v2.f32"}),
    ("f32", "local", 1, {"ld.global.f32"}),
])
def test_vec_len_sets_every_access_of_the_copy(dtype, mid, vec_len, loads):
    """numpy == tile == SIMT after every pass, nvcc + ptxas, and the loads of the configured
    copy (the only global loads) are exactly that wide."""
    final = check_every_stage(_vec_len_kernel(dtype, mid, vec_len), lambda x: [x],
                              name="copy")
    assert _global_loads(final) == loads


@pytest.mark.parametrize("dtype,mid,vec_len,shape,reason", [
    ("f32", "shared", 3, (64, 128), "config vec_len must be a power of two, got 3"),
    ("f32", "shared", 0, (64, 128), "config vec_len must be a positive integer"),
    ("f32", "shared", 8, (64, 128), r"8 elements per access: at most 4 here"),
    ("f64", "shared", 4, (64, 128), r"4 elements per access: at most 2 here"),
    ("f16", "local", 8, (64, 128), r"8 elements per access: at most 4 here"),
    ("f32", "shared", 2, (64, 3), "the 2 elements are not one aligned vector in global memory"),
])
def test_a_vec_len_the_copy_cannot_honour_is_a_located_error(dtype, mid, vec_len, shape,
                                                              reason):
    from tirx_mlir.diagnostics import TirxError, op_location

    with pytest.raises(TirxError, match=reason) as err:
        lower(_vec_len_kernel(dtype, mid, vec_len, shape), name="copy")
    assert "vec_auto (prio=10)" in str(err.value)
    assert op_location(err.value.op)[1:] == (4, 3)


def test_vec_len_between_registers_is_a_located_error():
    from tirx_mlir.diagnostics import TirxError, op_location

    r = "!tirx.buffer<64x128xf32, local>"
    text = f"""tirx.kernel @copy() grid [1] threads [128] target "cuda -arch=sm_80" {{
  %a = tirx.alloc : {r}
  %b = tirx.alloc : {r}
  tirx.copy cta %b, %a config {{vec_len = 4}} : {r}, {r}
  tirx.return
}}
"""
    with pytest.raises(TirxError, match="config vec_len sizes memory accesses; this copy is "
                                        "between registers") as err:
        lower(text, name="copy")
    assert op_location(err.value.op)[1:] == (4, 3)
