"""Rounding-mode conversions and packed registers against hand-computed bit patterns and the PTX
ISA's rules ("Data Movement and Conversion Instructions": cvt, cvt.pack, mov, prmt; "Rounding
Modifiers")."""

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.lane_ops import packing, rounding
from tirx_mlir.backends.cuda.interpreter.lane_ops.packing import BF16, F16

F32 = np.dtype(np.float32)


def f32(*values):
    return np.asarray(values, dtype=np.float32)


def f32_bits(*words):
    return np.asarray(words, dtype=np.uint32).view(np.float32)


def hexes(a) -> list[str]:
    return [hex(int(v)) for v in packing.bits(np.asarray(a))]


def rounded_bits(x, dt, mode):
    return hexes(rounding.round_float(np.asarray(x, dtype=np.float64), np.dtype(dt), mode))


# --- float -> float rounding modes (cvt.{rn,rz,rm,rp}) -------------------------------------------


@pytest.mark.parametrize("mode,expected", [
    ("rn", ["0x7bff", "0x7c00", "0xfc00"]),   # 65519 -> 65504; 65520 ties up to inf
    ("rz", ["0x7bff", "0x7bff", "0xfbff"]),   # never past the largest finite value
    ("rm", ["0x7bff", "0x7bff", "0xfc00"]),
    ("rp", ["0x7c00", "0x7c00", "0xfbff"]),
])
def test_f16_overflow_by_mode(mode, expected):
    assert rounded_bits([65519.0, 65520.0, -65520.0], F16, mode) == expected


@pytest.mark.parametrize("mode,expected", [
    # 1 + 2^-8 (a tie), -(1 + 2^-8), 1 + 3 * 2^-9 (above the tie)
    ("rn", ["0x3f80", "0xbf80", "0x3f81"]),
    ("rz", ["0x3f80", "0xbf80", "0x3f80"]),
    ("rm", ["0x3f80", "0xbf81", "0x3f80"]),
    ("rp", ["0x3f81", "0xbf80", "0x3f81"]),
])
def test_bf16_ties_and_directions(mode, expected):
    assert rounded_bits([1 + 2 ** -8, -(1 + 2 ** -8), 1 + 3 * 2 ** -9], BF16, mode) == expected


@pytest.mark.parametrize("mode,expected", [
    ("rn", ["0x0", "0x8000"]), ("rz", ["0x0", "0x8000"]),
    ("rm", ["0x0", "0x8001"]), ("rp", ["0x1", "0x8000"]),
])
def test_below_the_smallest_subnormal(mode, expected):
    assert rounded_bits([2.0 ** -30, -(2.0 ** -30)], F16, mode) == expected


def test_f64_to_f32_and_nan_inf_pass_through():
    assert rounded_bits([1 + 2 ** -30], F32, "rp") == ["0x3f800001"]
    assert rounded_bits([1 + 2 ** -30], F32, "rn") == ["0x3f800000"]
    for mode in rounding.FLOAT_MODES:
        out = rounding.round_float(np.asarray([np.inf, -np.inf, np.nan]), F32, mode)
        assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


def test_f64_to_bf16_rounds_once():
    """1 + 2^-8 + 2^-30 is just above a bf16 tie; rounded through f32 it would become the tie
    1 + 2^-8, then 1.0. Rounded once, the nearest bf16 is 1 + 2^-7."""
    x = np.asarray([1 + 2 ** -8 + 2 ** -30])
    assert rounded_bits(x, BF16, "rn") == ["0x3f81"]
    assert rounded_bits(x, BF16, "rz") == ["0x3f80"]


def test_int_to_float_exact_integers():
    i32 = np.asarray([16777217, -16777217], dtype=np.int32)
    assert hexes(rounding.int_to_float(i32, True, 32, F32, "rn")) == ["0x4b800000", "0xcb800000"]
    assert hexes(rounding.int_to_float(i32, True, 32, F32, "rp")) == ["0x4b800001", "0xcb800000"]
    assert hexes(rounding.int_to_float(i32, True, 32, F32, "rm")) == ["0x4b800000", "0xcb800001"]
    u32 = np.asarray([-1], dtype=np.int32)  # 0xffffffff read unsigned
    assert hexes(rounding.int_to_float(u32, False, 32, F32, "rz")) == ["0x4f7fffff"]
    assert hexes(rounding.int_to_float(u32, False, 32, F32, "rn")) == ["0x4f800000"]
    i64 = np.asarray([2 ** 63 - 1, -(2 ** 62 + 1), 2 ** 53 + 1], dtype=np.int64)
    assert hexes(rounding.int_to_float(i64, True, 64, F32, "rn"))[:2] == ["0x5f000000",
                                                                          "0xde800000"]
    assert hexes(rounding.int_to_float(i64, True, 64, F32, "rz"))[:2] == ["0x5effffff",
                                                                          "0xde800000"]
    assert hexes(rounding.int_to_float(i64, True, 64, F32, "rm"))[1] == "0xde800001"
    as_f64 = {m: rounding.int_to_float(i64, True, 64, np.dtype(np.float64), m)[2]
              for m in rounding.FLOAT_MODES}
    assert as_f64 == {"rn": 2.0 ** 53, "rz": 2.0 ** 53, "rm": 2.0 ** 53, "rp": 2.0 ** 53 + 2}


def test_i64_to_f32_rounds_once():
    """2^62 + 2^38 + 1 is just above an f32 tie (the f32 ulp there is 2^39); its double drops
    the +1 and is the tie, which would round to even (2^62). Rounded once: 2^62 + 2^39."""
    a = np.asarray([2 ** 62 + 2 ** 38 + 1, -(2 ** 62 + 2 ** 38 + 1)], dtype=np.int64)
    assert a.astype(np.float64).astype(np.float32)[0] == 2.0 ** 62  # the double rounding
    out = rounding.int_to_float(a, True, 64, F32, "rn")
    assert out.tolist() == [2.0 ** 62 + 2 ** 39, -(2.0 ** 62 + 2 ** 39)]
    assert rounding.int_to_float(a, True, 64, F32, "rz").tolist() == [2.0 ** 62, -(2.0 ** 62)]


# --- float -> int (cvt.{rni,rzi,rmi,rpi}) --------------------------------------------------------


@pytest.mark.parametrize("mode,expected", [
    ("rni", [2, 4, -2, -3, 0, 2147483647, -2147483648]),
    ("rzi", [2, 3, -2, -2, 0, 2147483647, -2147483648]),
    ("rmi", [2, 3, -3, -3, 0, 2147483647, -2147483648]),
    ("rpi", [3, 4, -2, -2, 0, 2147483647, -2147483648]),
])
def test_float_to_s32_rounds_saturates_and_nan_is_zero(mode, expected):
    x = np.asarray([2.5, 3.5, -2.5, -2.7, np.nan, 3e9, -np.inf])
    assert rounding.float_to_int(x, 32, True, mode).tolist() == expected


def test_float_to_u32_saturates_in_the_unsigned_range():
    out = rounding.float_to_int(np.asarray([-1.0, 5e9, 4294967295.0]), 32, False, "rzi")
    assert out.dtype == np.int32 and out.view(np.uint32).tolist() == [0, 4294967295, 4294967295]


def test_ftz_and_sat():
    x = f32(1e-40, -1e-40, 1.0)
    flushed = rounding.flush_subnormal(x)
    assert hexes(flushed) == ["0x0", "0x80000000", "0x3f800000"]
    assert rounding.saturate_unit(f32(1.5, -0.5, np.nan, 0.25)).tolist() == [1.0, 0.0, 0.0, 0.25]


# --- packed conversions --------------------------------------------------------------------------


def test_cvt_pack_f16x2_puts_the_first_source_in_the_upper_half():
    d = packing.cvt_pack_half(f32(1.0), f32(2.0), "f16x2")
    assert hexes(d) == ["0x3c004000"]  # f16 1.0 = 0x3c00 (a, upper), 2.0 = 0x4000 (b, lower)
    d = packing.cvt_pack_half(f32(1.0), f32(-2.0), "bf16x2")
    assert hexes(d) == ["0x3f80c000"]


def test_cvt_pack_rounds_to_nearest_even_and_relu():
    # 1 + 2^-11 ties to 1.0; 1 + 3 * 2^-11 ties to 1 + 2^-9
    assert hexes(packing.cvt_pack_half(f32(1 + 2 ** -11), f32(1 + 3 * 2 ** -11), "f16x2")) == \
        ["0x3c003c02"]
    assert hexes(packing.cvt_pack_half(f32(-1.0), f32(np.nan), "f16x2", relu=True)) == \
        ["0x7fff"]
    assert hexes(packing.cvt_pack_half(f32(-0.0), f32(3.0), "bf16x2", relu=True)) == \
        ["0x4040"]


def test_cvt_fp8x2_satfinite():
    # e4m3: 448 = 0x7e is MAXNORM (896 and inf clamp to it), -448 = 0xfe, NaN = 0x7f, 1.0 = 0x38
    assert hexes(packing.cvt_pack_fp8(f32(896.0), f32(-np.inf), "e4m3x2")) == ["0x7efe"]
    assert hexes(packing.cvt_pack_fp8(f32(np.nan), f32(1.0), "e4m3x2")) == ["0x7f38"]
    # e5m2: 57344 = 0x7b is MAXNORM, 1.0 = 0x3c
    assert hexes(packing.cvt_pack_fp8(f32(np.inf), f32(1.0), "e5m2x2")) == ["0x7b3c"]
    assert hexes(packing.cvt_pack_fp8(f32(-3.0), f32(2.0), "e5m2x2", relu=True)) == ["0x40"]


def test_cvt_f16x2_from_fp8x2_upper_byte_to_upper_half():
    a = np.asarray([0x38C0], dtype=np.uint16).view(np.int16)  # e4m3 1.0 (upper), -2.0 (lower)
    assert hexes(packing.cvt_fp8x2_to_f16x2(a, "e4m3x2")) == ["0x3c00c000"]
    assert hexes(packing.cvt_fp8x2_to_f16x2(a, "e4m3x2", relu=True)) == ["0x3c000000"]
    b = np.asarray([0x3C7F], dtype=np.uint16).view(np.int16)  # e5m2 1.0, NaN
    out = packing.cvt_fp8x2_to_f16x2(b, "e5m2x2").view(np.uint32)[0]
    assert out >> 16 == 0x3C00 and np.isnan(np.asarray([out & 0xFFFF], np.uint16).view(F16))[0]


@pytest.mark.parametrize("mode,expected", [
    ("rna", ["0x3f802000", "0x3f804000", "0x7f800000", "0xbf802000"]),
    ("rn", ["0x3f800000", "0x3f804000", "0x7f800000", "0xbf800000"]),
    ("rz", ["0x3f800000", "0x3f802000", "0x7f7fe000", "0xbf800000"]),
])
def test_cvt_tf32_keeps_ten_mantissa_bits(mode, expected):
    # 1 + 2^-11 (a tie, even below), 1 + 3 * 2^-11 (a tie, odd below), the largest f32,
    # -(1 + 2^-11)
    x = f32_bits(0x3F801000, 0x3F803000, 0x7F7FFFFF, 0xBF801000)
    assert hexes(packing.cvt_tf32(x, mode)) == expected
    assert hexes(packing.cvt_tf32(f32(np.nan), mode)) == ["0x7fffffff"]


# --- mov pack/unpack and prmt --------------------------------------------------------------------


def test_mov_pack_and_unpack():
    lo = np.asarray([0x1234], dtype=np.int16)
    hi = np.asarray([1.0], dtype=np.float16)  # a b16 register may hold an f16
    d = packing.pack_halves(lo, hi, 32)
    assert d.dtype == np.int32 and hexes(d) == ["0x3c001234"]
    assert [hexes(h) for h in packing.unpack_halves(d)] == [["0x1234"], ["0x3c00"]]
    d64 = packing.pack_halves(np.asarray([-1], np.int32), np.asarray([2], np.int32), 64)
    assert hexes(d64) == ["0x2ffffffff"]


A = np.asarray([0x33221100], dtype=np.uint32).view(np.int32)
B = np.asarray([0x77665544], dtype=np.uint32).view(np.int32)


@pytest.mark.parametrize("selector,expected", [
    (0x3210, "0x33221100"), (0x7654, "0x77665544"), (0x0123, "0x112233"),
    (0x4567, "0x44556677"), (0x1111, "0x11111111"),
])
def test_prmt_default_mode_selects_bytes(selector, expected):
    c = np.asarray([selector], dtype=np.int32)
    assert hexes(packing.prmt(A, B, c)) == [expected]


def test_prmt_default_mode_replicates_the_sign():
    a = np.asarray([0x00008000], dtype=np.int32)  # byte 1 = 0x80 (negative), byte 0 = 0x00
    c = np.asarray([0x0009, 0x9898], dtype=np.int32)
    # 0x9898: nibbles 8 (sign of byte 0 = 0x00), 9 (sign of byte 1 = 0xff), 8, 9
    assert hexes(packing.prmt(np.repeat(a, 2), np.zeros(2, np.int32), c)) == \
        ["0xff", "0xff00ff00"]


@pytest.mark.parametrize("mode,selector,expected", [
    ("f4e", 1, "0x44332211"), ("f4e", 3, "0x66554433"), ("b4e", 0, "0x55667700"),
    ("b4e", 3, "0x112233"), ("rc8", 2, "0x22222222"), ("ecl", 1, "0x33221111"),
    ("ecr", 2, "0x22221100"), ("rc16", 1, "0x33223322"), ("rc16", 2, "0x11001100"),
])
def test_prmt_modes(mode, selector, expected):
    c = np.asarray([selector | 0xFFF0], dtype=np.int32)  # only c[1:0] matters in a mode
    assert hexes(packing.prmt(A, B, c, mode)) == [expected]


def test_fp8_maxnorm_values():
    assert float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max) == 448.0
    assert float(ml_dtypes.finfo(ml_dtypes.float8_e5m2).max) == 57344.0
