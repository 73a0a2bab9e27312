"""The lane implementations run by the SIMT interpreter: arith/math, the cuda math intrinsics and
the ptx move/conversion rows, each in a small kernel of 64 threads (two warps), against numpy
or hand-computed bits; faults name the threads."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.backends.cuda.interpreter.impls import load_impls
from tirx_mlir.backends.cuda.interpreter.lane_ops import packing
from tirx_mlir.interpreter.runtime import InterpretError

N = 64
BF16 = np.dtype(ml_dtypes.bfloat16)


def run_lanes(body: str, inputs: dict[str, tuple[str, np.ndarray]], out_type: str,
              target: str = "cuda -arch=sm_90a") -> np.ndarray:
    """Run ``body`` per thread: ``%<name>`` holds element t of each input, the body defines
    ``%r`` of ``out_type``, stored at element t of the output."""
    params = ", ".join(f"%{n.upper()}: !tirx.buffer<{N}x{t}, global>" for n, (t, _) in
                       inputs.items())
    loads = "".join(f"  %{n} = cuda.load %{n.upper()}, %t : !tirx.buffer<{N}x{t}, global>, "
                    f"index -> {t}\n" for n, (t, _) in inputs.items())
    text = cuda_kernel(f"({params}) -> (%OUT: !tirx.buffer<{N}x{out_type}, global>)",
                       f"  %t = cuda.thread_idx x : index\n{loads}{body}\n"
                       f"  cuda.store %OUT, %t, %r : !tirx.buffer<{N}x{out_type}, global>, "
                       f"index, {out_type}", f"grid [1] threads [{N}]", target)
    (out,), _ = run_simt(text, *(a for _, a in inputs.values()))
    return out


def rng_f32(seed=0, scale=4.0):
    return (np.random.default_rng(seed).standard_normal(N) * scale).astype(np.float32)


def rng_i32(seed=0, low=-1000, high=1000):
    return np.random.default_rng(seed).integers(low, high, N).astype(np.int32)


def assert_bits(actual, expected):
    np.testing.assert_array_equal(packing.bits(actual), packing.bits(expected))


# --- arith and math ------------------------------------------------------------------------------


def test_arith_integer_ops_wrap_like_numpy():
    a, b = rng_i32(1, -(2 ** 31), 2 ** 31 - 1), rng_i32(2, 1, 31)
    out = run_lanes("""
  %m = arith.muli %a, %a : i32
  %q = arith.divsi %m, %b : i32
  %s = arith.shli %q, %b : i32
  %r = arith.xori %s, %a : i32""", {"a": ("i32", a), "b": ("i32", b)}, "i32")
    m = (a.astype(np.int64) * a).astype(np.int32).astype(np.int64)  # wraps at 32 bits
    q = np.sign(m) * (np.abs(m) // b)  # toward zero
    expected = (q << b).astype(np.int32) ^ a
    np.testing.assert_array_equal(out, expected)


def test_arith_shift_fault_names_the_threads():
    b = np.zeros(N, np.int32)
    b[[3, 40]] = 33
    message = r"arith\.shli: shift by 33 bits of an i32 value \(poison in MLIR\) " \
              r"\(threads 3, 40 of CTA \(0,0,0\)\)"
    with pytest.raises(InterpretError, match=message):
        run_lanes("  %r = arith.shli %b, %b : i32", {"b": ("i32", b)}, "i32")


def test_division_by_zero_names_the_threads_and_masked_lanes_do_not_fault():
    b = np.ones(N, np.int32)
    b[[5, 6]] = 0
    message = r"<test>:\d+:3: error: arith\.remui: integer division by zero .*" \
              r"\(threads 5-6 of CTA \(0,0,0\)\)"
    with pytest.raises(InterpretError, match=message):
        run_lanes("  %r = arith.remui %b, %b : i32", {"b": ("i32", b)}, "i32")
    # under an scf.if that excludes the zero lanes, the division runs only where b != 0
    out = run_lanes("""
  %c0 = arith.constant 0 : i32
  %nz = arith.cmpi ne, %b, %c0 : i32
  %r = scf.if %nz -> (i32) {
    %q = arith.divui %b, %b : i32
    scf.yield %q : i32
  } else {
    scf.yield %c0 : i32
  }""", {"b": ("i32", b)}, "i32")
    np.testing.assert_array_equal(out, (b != 0).astype(np.int32))


def test_float_arith_and_math_round_to_f16():
    x = rng_f32(3).astype(np.float16)
    out = run_lanes("""
  %e = math.exp %x : f16
  %s = arith.mulf %e, %x : f16
  %m = arith.maximumf %s, %x : f16
  %r = math.fma %m, %x, %x : f16""", {"x": ("f16", x)}, "f16")
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # exp(x) may pass f16's range
        e = np.exp(x64).astype(np.float16).astype(np.float64)
        s = (e * x64).astype(np.float16).astype(np.float64)
        m = np.maximum(s, x64)
        expected = (m * x64 + x64).astype(np.float16)
    assert_bits(out, expected)


def test_conversions_and_compare_select():
    x = rng_f32(4, 300.0)
    x[:4] = [np.nan, np.inf, -3e10, 0.5]
    out = run_lanes("""
  %i = arith.fptosi %x : f32 to i16
  %e = arith.extsi %i : i16 to i32
  %c0 = arith.constant 0 : i32
  %neg = arith.cmpi slt, %e, %c0 : i32
  %n = arith.subi %c0, %e : i32
  %r = arith.select %neg, %n, %e : i32""", {"x": ("f32", x)}, "i32")
    expected = np.abs(np.clip(np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0,
                                            posinf=32767, neginf=-32768), -32768, 32767))
    np.testing.assert_array_equal(out, expected.astype(np.int32))


def test_math_integer_and_bitcast():
    a = rng_i32(5, -(2 ** 31), 2 ** 31 - 1)
    out = run_lanes("""
  %p = math.ctpop %a : i32
  %z = math.ctlz %a : i32
  %s = arith.addi %p, %z : i32
  %f = arith.bitcast %s : i32 to f32
  %r = arith.bitcast %f : f32 to i32""", {"a": ("i32", a)}, "i32")
    u = a.view(np.uint32)
    pop = np.bitwise_count(u).astype(np.int32)
    clz = np.asarray([32 - int(v).bit_length() for v in u], np.int32)
    np.testing.assert_array_equal(out, pop + clz)


def test_vector_arith_on_a_half2():
    x = rng_f32(6)
    out = run_lanes("""
  %h = cuda.pack %x, %x : f32, f32 -> vector<2xf16>
  %c = arith.constant dense<[1.0, 2.0]> : vector<2xf16>
  %s = arith.mulf %h, %c : vector<2xf16>
  %lo, %hi = cuda.unpack %s : vector<2xf16> -> f32, f32
  %r = arith.subf %hi, %lo : f32""", {"x": ("f32", x)}, "f32")
    h = x.astype(np.float16)
    expected = (h * np.float16(2)).astype(np.float32) - h.astype(np.float32)
    np.testing.assert_array_equal(out, expected)


# --- cuda math intrinsics ----------------------------------------------------------------------


@pytest.mark.parametrize("func,fn", [
    ("exp2", np.exp2), ("exp", np.exp), ("log2", np.log2), ("rcp", lambda x: 1 / x),
    ("rsqrt", lambda x: 1 / np.sqrt(x)), ("sin", np.sin), ("tanh", np.tanh),
])
def test_cuda_fast(func, fn):
    x = np.abs(rng_f32(7)) + np.float32(0.01)
    out = run_lanes(f"  %r = cuda.fast {func} %x : f32 -> f32", {"x": ("f32", x)}, "f32")
    expected = fn(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out, expected)
    ulp = np.spacing(np.abs(expected))
    assert (np.abs(out.astype(np.float64) - fn(x.astype(np.float64))) <= ulp).all()


def test_cuda_fdividef_documented_special_range():
    a, b = rng_f32(8), rng_f32(9)
    a[0], b[0] = 1.0, 2.0 ** 127  # 2^126 < |b| < 2^128: 0
    a[1], b[1] = np.inf, -(2.0 ** 127)  # ... and NaN for an infinite numerator
    out = run_lanes("  %r = cuda.fdividef %a, %b : f32, f32 -> f32",
                    {"a": ("f32", a), "b": ("f32", b)}, "f32")
    assert out[0] == 0.0 and np.isnan(out[1])
    np.testing.assert_array_equal(out[2:], (a[2:].astype(np.float64) / b[2:]).astype(np.float32))


@pytest.mark.parametrize("elem", ["f16", "bf16"])
def test_cuda_pack_unpack_round_trip(elem):
    a, b = rng_f32(10), rng_f32(11)
    out = run_lanes(f"""
  %h = cuda.pack %a, %b : f32, f32 -> vector<2x{elem}>
  %lo, %hi = cuda.unpack %h : vector<2x{elem}> -> f32, f32
  %two = arith.constant 2.0 : f32
  %s = arith.mulf %hi, %two : f32
  %r = arith.addf %lo, %s : f32""", {"a": ("f32", a), "b": ("f32", b)}, "f32",
                    target="cuda -arch=sm_80")
    dt = np.float16 if elem == "f16" else BF16
    lo, hi = a.astype(dt).astype(np.float32), b.astype(dt).astype(np.float32)
    np.testing.assert_array_equal(out, lo + hi * np.float32(2))


@pytest.mark.parametrize("rnd,fn", [("rn", np.rint), ("rz", np.trunc), ("rd", np.floor),
                                    ("ru", np.ceil)])
def test_cuda_cvt_float_to_int(rnd, fn):
    x = rng_f32(12, 1e3)
    x[:3] = [np.nan, 1e12, -1e12]
    out = run_lanes(f"  %r = cuda.cvt %x round {rnd} : f32 -> i32", {"x": ("f32", x)}, "i32",
                    target="cuda -arch=sm_80")
    expected = np.clip(np.nan_to_num(fn(x.astype(np.float64))), -2 ** 31, 2 ** 31 - 1)
    np.testing.assert_array_equal(out, expected.astype(np.int32))


def test_cuda_cvt_to_bf16_by_mode_and_from_unsigned():
    x = np.full(N, 1 + 2 ** -8, np.float32)  # a bf16 tie
    up = run_lanes("  %r = cuda.cvt %x round ru : f32 -> bf16", {"x": ("f32", x)}, "bf16",
                   target="cuda -arch=sm_80")
    near = run_lanes("  %r = cuda.cvt %x : f32 -> bf16", {"x": ("f32", x)}, "bf16",
                     target="cuda -arch=sm_80")
    assert set(packing.bits(up).tolist()) == {0x3F81} and set(packing.bits(near)) == {0x3F80}
    u = np.full(N, -1, np.int32).view(np.uint32)
    f = run_lanes("  %r = cuda.cvt %u round rz : ui32 -> f32", {"u": ("ui32", u)}, "f32",
                  target="cuda -arch=sm_80")
    assert set(packing.bits(f).tolist()) == {0x4F7FFFFF}  # 2^32 - 1 toward zero


# --- ptx rows ------------------------------------------------------------------------------------


def test_ptx_cvt_pack_and_unpack_with_mov():
    a, b = rng_f32(13), rng_f32(14)
    out = run_lanes("""
  %d = ptx.cvt_pack "f16x2" %a, %b : (f32, f32) -> i32
  %lo, %hi = ptx.mov_unpack "b32" %d : (i32) -> (i16, i16)
  %swapped = ptx.mov_pack "b32" {%hi, %lo} : (i16, i16) -> i32
  %r = ptx.mov "b32" %swapped : (i32) -> i32""", {"a": ("f32", a), "b": ("f32", b)}, "i32")
    # cvt_pack puts a in the upper half; swapping the halves puts a in the lower half
    ha = packing.bits(a.astype(np.float16)).astype(np.uint32)
    hb = packing.bits(b.astype(np.float16)).astype(np.uint32)
    np.testing.assert_array_equal(out.view(np.uint32), (hb << 16) | ha)


def test_ptx_cvt_rounding_and_sat():
    x = rng_f32(15, 3.0)
    out = run_lanes('  %r = ptx.cvt "rmi.s32.f32" %x : (f32) -> i32', {"x": ("f32", x)}, "i32")
    np.testing.assert_array_equal(out, np.floor(x).astype(np.int32))
    sat = run_lanes('  %r = ptx.cvt "rn.sat.f16.f32" %x : (f32) -> f16', {"x": ("f32", x)},
                    "f16")
    np.testing.assert_array_equal(sat, np.clip(x, 0, 1).astype(np.float16))
    d = x.astype(np.float64) / 3
    down = run_lanes('  %r = ptx.cvt "rm.f32.f64" %d : (f64) -> f32', {"d": ("f64", d)}, "f32")
    assert (down.astype(np.float64) <= d).all() and \
        (np.nextafter(down, np.float32(np.inf)).astype(np.float64) > d).all()


def test_ptx_cvt_fp8x2_round_trip_through_f16x2():
    a, b = rng_f32(16, 100.0), rng_f32(17, 100.0)
    out = run_lanes("""
  %p = ptx.cvt_fp8x2 "e4m3x2" %a, %b : (f32, f32) -> i16
  %r = ptx.cvt_fp8x2_f16x2 "e4m3x2" %p : (i16) -> i32""", {"a": ("f32", a), "b": ("f32", b)},
                    "i32")
    e4 = ml_dtypes.float8_e4m3fn
    clip = lambda v: np.clip(v, -448, 448).astype(e4).astype(np.float16)  # noqa: E731
    expected = (packing.bits(clip(a)).astype(np.uint32) << 16) | packing.bits(clip(b))
    np.testing.assert_array_equal(out.view(np.uint32), expected)


def test_ptx_cvt_tf32_and_prmt():
    x = rng_f32(18)
    out = run_lanes('  %r = ptx.cvt_tf32 "rz" %x : (f32) -> i32', {"x": ("f32", x)}, "i32")
    np.testing.assert_array_equal(out.view(np.uint32), x.view(np.uint32) & 0xFFFFE000)
    a = rng_i32(19, -(2 ** 31), 2 ** 31 - 1)
    b = rng_i32(20, -(2 ** 31), 2 ** 31 - 1)
    sel = np.full(N, 0x5140, np.int32)  # bytes 0, 4, 1, 5: interleave the low halves
    out = run_lanes("  %r = ptx.prmt %a, %b, %s : (i32, i32, i32) -> i32",
                    {"a": ("i32", a), "b": ("i32", b), "s": ("i32", sel)}, "i32")
    ab = a.view(np.uint8).reshape(N, 4)
    bb = b.view(np.uint8).reshape(N, 4)
    expected = np.stack([ab[:, 0], bb[:, 0], ab[:, 1], bb[:, 1]], axis=1).reshape(-1)
    np.testing.assert_array_equal(out.view(np.uint8), expected)


def test_every_conversion_row_and_cuda_math_op_has_an_implementation():
    from tirx_mlir.backends.cuda.dialects.cuda.math import MATH_OPS
    from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW

    impls = load_impls()
    rows = ("mov", "mov_pack", "mov_unpack", "cvt", "cvt_pack", "cvt_fp8x2", "cvt_fp8x2_f16x2",
            "cvt_tf32", "prmt")
    assert all(OPS_BY_ROW[r] in impls for r in rows)
    assert all(op in impls for op in MATH_OPS)
