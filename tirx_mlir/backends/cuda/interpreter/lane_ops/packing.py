"""Packed registers: two halves in one PTX register, and the byte permute.

Rules, from the PTX ISA ("Data Movement and Conversion Instructions": ``cvt``, ``mov``,
``prmt``):

* ``cvt.rn{.relu}.{f16x2,bf16x2}.f32 d, a, b``: "the value converted from input a is stored in
  the upper half of d and the value converted from input b is stored in the lower half";
  ``.relu`` clamps a negative result (-0 too) to +0 and gives the canonical NaN (0x7fff) for NaN;
* ``cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b``: a -> upper byte, b -> lower byte;
  ``.satfinite`` clamps +-inf and values past the largest finite one to +-MAXNORM (448 for
  e4m3, 57344 for e5m2), a NaN gives the canonical NaN 0x7f;
* ``cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a``: the upper byte of a to the upper half of d
  (exact: every e4m3/e5m2 value is an f16);
* ``cvt.{rna,rn,rz}.tf32.f32 d, a``: keep 10 mantissa bits (ties away from zero, to even,
  toward zero) in an f32 container whose low 13 bits are 0; NaN gives 0x7fffffff;
* ``mov.b32 d, {lo, hi}`` / ``mov.b32 {lo, hi}, d``: lo is the low half (b64: of two b32);
* ``prmt.b32{.mode} d, a, b, c``: bytes 0..3 of a and 4..7 of b form an 8-byte value; each byte
  of d is chosen from it by c (default mode: the nibble ``c[4i+3:4i]`` picks byte i, its bit 3
  replicates the picked byte's sign bit) or by the mode's table indexed by ``c[1:0]``.

Registers are signed lane arrays (int32 for b32, int16 for b16, int64 for b64); `bits` and
`from_bits` reinterpret a lane array of any type of that width.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import F32, F64, SIGNED, UNSIGNED
from tirx_mlir.backends.cuda.interpreter.lane_ops.rounding import round_float

F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E5M2 = np.dtype(ml_dtypes.float8_e5m2)
HALF = {"f16x2": F16, "bf16x2": BF16}
FP8 = {"e4m3x2": E4M3, "e5m2x2": E5M2}
CANONICAL_NAN16 = 0x7FFF
CANONICAL_NAN8 = 0x7F


def bits(a: np.ndarray) -> np.ndarray:
    """The bits of a lane array as unsigned integers of its width."""
    return np.ascontiguousarray(a).view(UNSIGNED[8 * a.dtype.itemsize])


def from_bits(u: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Unsigned bits (any unsigned dtype holding them) as a lane array of ``dt``."""
    return u.astype(UNSIGNED[8 * dt.itemsize]).view(dt)


def _relu(value: np.ndarray, nan_bits: int) -> np.ndarray:
    """``.relu`` on converted values: negative (-0 included) -> +0, NaN -> the canonical NaN."""
    x = value.astype(F64)
    u = bits(value)
    u = np.where(np.signbit(x), 0, u).astype(u.dtype)
    return np.where(np.isnan(x), nan_bits, u).astype(u.dtype)


def to_half_bits(x: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """f32 lane array -> uint16 bits of f16/bf16, round to nearest even (``.relu``)."""
    value = round_float(x.astype(F64), HALF[fmt], "rn")
    return _relu(value, CANONICAL_NAN16) if relu else bits(value)


def cvt_pack_half(a: np.ndarray, b: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """``cvt.rn{.relu}.{f16x2|bf16x2}.f32 d, a, b`` -> d as int32 (a in the upper half)."""
    hi = to_half_bits(a, fmt, relu).astype(np.uint32)
    lo = to_half_bits(b, fmt, relu).astype(np.uint32)
    return ((hi << np.uint32(16)) | lo).view(np.int32)


def to_fp8_bits(x: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """f32 lane array -> uint8 bits of e4m3/e5m2, nearest even with ``.satfinite``."""
    dt = FP8[fmt]
    limit = float(ml_dtypes.finfo(dt).max)
    x64 = x.astype(F64)
    clamped = np.clip(x64, -limit, limit)  # NaN stays NaN
    with np.errstate(over="ignore", invalid="ignore"):
        value = clamped.astype(dt)
    u = np.where(np.isnan(x64), CANONICAL_NAN8, bits(value)).astype(np.uint8)
    return _relu(u.view(dt), CANONICAL_NAN8) if relu else u


def cvt_pack_fp8(a: np.ndarray, b: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """``cvt.rn.satfinite{.relu}.{e4m3x2|e5m2x2}.f32 d, a, b`` -> d as int16 (a upper)."""
    hi = to_fp8_bits(a, fmt, relu).astype(np.uint16)
    lo = to_fp8_bits(b, fmt, relu).astype(np.uint16)
    return ((hi << np.uint16(8)) | lo).view(np.int16)


def cvt_fp8x2_to_f16x2(a: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """``cvt.rn{.relu}.f16x2.{e4m3x2|e5m2x2} d, a`` -> d as int32 (upper byte -> upper half)."""
    u = bits(a).astype(np.uint16)
    out = []
    for byte in (u >> np.uint16(8), u & np.uint16(0xFF)):
        value = byte.astype(np.uint8).view(FP8[fmt]).astype(F16)
        out.append((_relu(value, CANONICAL_NAN16) if relu else bits(value)).astype(np.uint32))
    return ((out[0] << np.uint32(16)) | out[1]).view(np.int32)


def cvt_tf32(x: np.ndarray, mode: str) -> np.ndarray:
    """``cvt.{rna|rn|rz}.tf32.f32 d, a`` -> d as int32 (10-bit mantissa, low 13 bits 0)."""
    u = bits(x.astype(F32)).astype(np.uint64)
    if mode == "rna":
        u = u + 0x1000
    elif mode == "rn":
        u = u + 0xFFF + ((u >> np.uint64(13)) & np.uint64(1))
    elif mode != "rz":
        raise ValueError(f"tf32 rounding is rna, rn or rz, not {mode!r}")
    kept = (u & np.uint64(0xFFFFE000)).astype(np.uint32)
    return np.where(np.isnan(x), np.uint32(0x7FFFFFFF), kept).view(np.int32)


def pack_halves(lo: np.ndarray, hi: np.ndarray, width: int) -> np.ndarray:
    """``mov.b{width} d, {lo, hi}``: d as a signed lane array of ``width`` bits."""
    half = width // 2
    wide = UNSIGNED[width]
    u = bits(lo).astype(wide) | (bits(hi).astype(wide) << wide.type(half))
    return u.view(SIGNED[width])


def unpack_halves(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mov.b{width} {lo, hi}, d``: the halves as unsigned bits of half the width."""
    width = 8 * d.dtype.itemsize
    half = UNSIGNED[width // 2]
    u = bits(d)
    return (u & u.dtype.type((1 << (width // 2)) - 1)).astype(half), \
        (u >> u.dtype.type(width // 2)).astype(half)


PRMT_MODES = {
    # mode -> for c[1:0] = 0..3, the source byte of d.b0, d.b1, d.b2, d.b3
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}
"""The PTX ISA's prmt mode table (its rows list d.b3 d.b2 d.b1 d.b0; here d.b0 first)."""


def prmt(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: str | None = None) -> np.ndarray:
    """``prmt.b32{.mode} d, a, b, c`` -> d as int32."""
    source = (bits(b).astype(np.uint64) << np.uint64(32)) | bits(a).astype(np.uint64)
    sel = bits(c).astype(np.uint64)
    out = np.zeros(source.shape, dtype=np.uint64)
    table = None if mode is None else np.asarray(PRMT_MODES[mode], dtype=np.uint64)
    for i in range(4):
        if table is None:
            nibble = (sel >> np.uint64(4 * i)) & np.uint64(0xF)
            index = nibble & np.uint64(7)
        else:
            index = table[(sel & np.uint64(3)).astype(np.intp), i]
        byte = (source >> (index * np.uint64(8))) & np.uint64(0xFF)
        if table is None:
            sign = (byte >> np.uint64(7)) * np.uint64(0xFF)
            byte = np.where(nibble & np.uint64(8), sign, byte)
        out |= byte << np.uint64(8 * i)
    return out.astype(np.uint32).view(np.int32)
