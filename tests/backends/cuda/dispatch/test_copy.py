"""tirx.copy on CUDA: vec_auto in every direction (global, shared, registers), the fallback, and
the bank-conflict counts of the shared accesses the variants emit (SIMT statistics)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_testing.float_neighbours import neighbours
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


# --- vec_len (TIRx's forced vector length) --------------------------------------------------------

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


# --- a cast's rounding_mode ---------------------------------------------------------------------

def _cast_kernel(src: str, dst: str, mid: str, mode: str, arch: str = "sm_80") -> str:
    """X (global) -> ``mid`` -> cast with ``mode`` -> Y (global)."""
    gi, go = f"!tirx.buffer<64x64x{src}, global>", f"!tirx.buffer<64x64x{dst}, global>"
    a, h = f"!tirx.buffer<64x64x{src}, {mid}>", f"!tirx.buffer<64x64x{dst}, {mid}>"
    return f"""tirx.kernel @cast(%X: {gi}) -> (%Y: {go}) grid [1] threads [128]
    target "cuda -arch={arch}" {{
  %a = tirx.alloc : {a}
  %h = tirx.alloc : {h}
  tirx.copy cta %a, %X : {a}, {gi}
  tirx.cast cta %h, %a config {{rounding_mode = "{mode}"}} : {h}, {a}
  tirx.copy cta %Y, %h : {go}, {h}
  tirx.return
}}
"""


def _cast_reference(dt, mode: str):
    def ref(x):
        if mode == "rn":
            with np.errstate(over="ignore"):
                return [x.astype(dt)]
        lo, hi = neighbours(x.astype(np.float64), dt)
        return [{"rm": lo, "rp": hi, "rz": np.where(x > 0, lo, hi)}[mode]]
    return ref


def _cast_inputs() -> list[np.ndarray]:
    """Random values and the edges: halfway cases of f16 and bf16, exact values, signed zeros,
    values past f16's largest finite one (rz keeps them finite)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 64)).astype(np.float32) * 100
    edges = np.array([1 + 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 2.0 ** -8, -(1 + 3 * 2.0 ** -8),
                      1.0, -0.0, 0.0, 65504.0, 70000.0, -70000.0, 1e-8, -1e-8], np.float32)
    x.flat[:edges.size] = edges
    return [x]


@pytest.mark.parametrize("dst,mid,mode,arch", [
    ("f16", "shared", "rz", "sm_80"), ("f16", "local", "rp", "sm_80"),
    ("f16", "shared", "rm", "sm_90a"), ("bf16", "local", "rm", "sm_80"),
    ("bf16", "shared", "rz", "sm_80"), ("bf16", "local", "rp", "sm_90a"),
    ("f16", "local", "rn", "sm_80"),
])
def test_a_cast_rounds_in_its_rounding_mode(dst, mid, mode, arch):
    """numpy (neighbours by nextafter) == tile interpreter == SIMT after every pass, bit for
    bit; nvcc and ptxas for the arch; one cvt.<mode> per element."""
    from ml_dtypes import bfloat16

    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    dt = {"f16": np.float16, "bf16": bfloat16}[dst]
    final = check_every_stage(_cast_kernel("f32", dst, mid, mode, arch),
                              _cast_reference(dt, mode), arch=arch, rtol=0, atol=0,
                              name="cast", inputs=_cast_inputs())
    if mode != "rn":
        assert f"cvt.{mode}.{dst}.f32" in emit_ptx(final)


def test_rounding_modes_differ_on_these_inputs():
    """The reference's modes disagree on the inputs (so each test above checks its mode)."""
    x = _cast_inputs()[0]
    outs = [_cast_reference(np.float16, m)(x)[0] for m in ("rn", "rz", "rm", "rp")]
    for i, a in enumerate(outs):
        for b in outs[i + 1:]:
            assert (a != b).sum() > 100


@pytest.mark.parametrize("src,dst,mode,reason", [
    ("f32", "f16", "rna", "rounding_mode must be one of rn, rz, rm, rp"),
    ("f32", "i32", "rz", "rounding_mode rounds float -> float casts; operand 'dst'"),
])
def test_a_rounding_mode_no_cast_has_fails_verification(src, dst, mode, reason):
    """(tests/filecheck/dialects/tirx/invalid.mlir shows the op's file:line:col.)"""
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.located_parser import parse_module

    with pytest.raises(VerifyException, match=reason):
        parse_module(_cast_kernel(src, dst, "shared", mode), "cast").verify()


def test_a_rounding_mode_ptx_has_no_cvt_for_is_a_located_error():
    from tirx_mlir.diagnostics import TirxError, op_location

    with pytest.raises(TirxError, match=r"rounding_mode rz: cvt.rz.f16.f64: cvt.f16.f64 is not "
                                        r"a supported conversion") as err:
        lower(_cast_kernel("f64", "f16", "shared", "rz"), name="cast")
    assert op_location(err.value.op)[1:] == (6, 3)


def test_a_copy_does_not_take_rounding_mode():
    from tirx_mlir.diagnostics import TirxError

    text = _vec_len_kernel("f32", "shared", 4).replace("vec_len = 4", 'rounding_mode = "rz"')
    with pytest.raises(TirxError, match=r"config rounding_mode is not a config of this "
                                        r"variant \(it takes: cache, l1_evict, l2_evict, "
                                        r"prefetch_size, vec_len\)"):
        lower(text, name="copy")
