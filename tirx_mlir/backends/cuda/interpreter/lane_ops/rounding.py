"""Numeric conversions with an explicit rounding mode, as PTX ``cvt`` and the CUDA conversion
intrinsics define them (PTX ISA, "Data Movement and Conversion Instructions: cvt", and its
"Rounding Modifiers" tables):

* float -> float: ``rn`` (nearest, ties to even), ``rz`` (toward zero), ``rm`` (toward -inf),
  ``rp`` (toward +inf); a finite value past the largest finite one rounds to inf under ``rn``
  and under the directed modes that round away from it, to the largest finite value otherwise;
* float -> integer: ``rni``/``rzi``/``rmi``/``rpi`` round to an integral value the same four
  ways, then the result saturates to the destination range and NaN gives 0 (the cvt text: "the
  result is clamped to the destination range by default");
* integer -> float: the four float roundings of the exact integer (int64 included);
* ``.ftz`` flushes f32 subnormal inputs and results to sign-preserving zero; ``.sat`` on a float
  destination clamps to [0.0, 1.0] with NaN giving +0.0.

The float roundings are the core's (`tirx_mlir.interpreter.rounding`, shared with the tile
level's ``rounding_mode``). Exactness of the comparison: every source is a float64 holding the
exact value, or, for int64 sources, a *round-to-odd* double (53 bits, at least two more than
any target narrower than f64), which rounds the same as the exact integer in every mode.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import F64, I64, SIGNED, UNSIGNED
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.rounding import FLOAT_MODES, directed, next_toward, round_float

__all__ = ["FLOAT_MODES", "INT_MODES", "directed", "round_float", "int64_to_float",
           "flush_subnormal", "saturate_unit", "float_to_int", "int_to_float"]

INT_MODES = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def int64_to_float(a: np.ndarray, dt: np.dtype, mode: str = "rn") -> np.ndarray:
    """int64 ``a`` rounded to float ``dt`` in ``mode`` (the exact integer, not a double)."""
    r = a.astype(F64)  # nearest even, may be inexact past 2**53
    big = r >= 2.0 ** 63  # rounded up past int64's range: above every int64
    back = np.where(big, 0.0, r).astype(I64)
    above = big | (back > a)
    below = ~big & (back < a)
    if dt == F64:
        move = {"rn": None, "rz": (above & (a > 0)) | (below & (a < 0)), "rm": above,
                "rp": below}[mode]
        return r if move is None else np.where(move, next_toward(r, below), r)
    toward_zero = np.where((above & (a > 0)) | (below & (a < 0)), next_toward(r, a < 0), r)
    inexact = (above | below).view(np.uint8).astype(np.uint64)
    odd = (toward_zero.view(np.uint64) | inexact).view(F64)
    return round_float(odd, dt, mode)


def flush_subnormal(x: np.ndarray) -> np.ndarray:
    """f32 subnormals to sign-preserving zero (``.ftz``)."""
    tiny = np.finfo(np.float32).tiny
    with np.errstate(invalid="ignore"):
        sub = (np.abs(x) < tiny) & (x != 0)
    return np.where(sub, np.copysign(0.0, x).astype(x.dtype), x)


def saturate_unit(x: np.ndarray) -> np.ndarray:
    """``.sat`` on a float destination: clamp to [0.0, 1.0]; NaN gives +0.0."""
    return np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0)).astype(x.dtype)


def float_to_int(x: np.ndarray, width: int, signed: bool, mode: str) -> np.ndarray:
    """float64 ``x`` to an integer of ``width`` bits in signed lane form: round to an integral
    value (``rni``/``rzi``/``rmi``/``rpi``), saturate to the (un)signed range, NaN -> 0."""
    rounded = INT_MODES[mode](x)
    out = runtime.convert(rounded, SIGNED[width] if signed else UNSIGNED[width])
    return out if signed else out.view(SIGNED[width])


def int_to_float(a: np.ndarray, signed: bool, width: int, dt: np.dtype,
                 mode: str = "rn") -> np.ndarray:
    """A signed-form integer lane array read as (un)signed ``width`` bits, rounded to ``dt``."""
    if width == 64:
        if not signed:
            raise ValueError("u64 -> float conversions are not supported")
        return int64_to_float(a, dt, mode)
    value = a.astype(F64) if signed else a.view(UNSIGNED[width]).astype(F64)
    return round_float(value, dt, mode)
