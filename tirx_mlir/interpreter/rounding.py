"""Float rounding with an explicit mode, the one definition the interpreters share (the tile
level for TIRx's ``rounding_mode`` config, the CUDA SIMT interpreter for PTX ``cvt``):

* ``rn``: to nearest, ties to even (numpy's and ml_dtypes' casts);
* ``rz``: toward zero; ``rm``: toward -inf; ``rp``: toward +inf. A finite value past the
  largest finite one rounds to inf under ``rn`` and under the directed modes that round away
  from it, to the largest finite value otherwise (IEEE 754 section 4.3, PTX ISA "cvt").

Method: the nearest-even cast gives a candidate; the directed modes move it one unit in the
last place when it lies on the wrong side of the exact value, which the float64 source holds.
"""

from __future__ import annotations

import numpy as np

FLOAT_MODES = ("rn", "rz", "rm", "rp")
F64 = np.dtype(np.float64)
_UNSIGNED = {16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}


def next_toward(r: np.ndarray, up: np.ndarray) -> np.ndarray:
    """``r`` moved one unit in the last place up (``up`` true) or down, by its bits (from a zero
    to the smallest subnormal of the direction's sign; from inf toward zero to the largest
    finite value)."""
    bits = 8 * r.dtype.itemsize
    u = r.view(_UNSIGNED[bits])
    sign = np.asarray(1 << (bits - 1), dtype=u.dtype)
    one = np.asarray(1, dtype=u.dtype)
    negative = (u & sign) != 0
    zero = (u & ~sign) == 0
    away = up != negative  # up on a positive value, down on a negative one: away from zero
    moved = np.where(away, u + one, u - one)
    moved = np.where(zero, np.where(up, one, sign | one), moved)
    return moved.view(r.dtype)


def directed(x: np.ndarray, r: np.ndarray, mode: str) -> np.ndarray:
    """Correct ``r`` (the nearest value of its dtype to the float64 ``x``, or one of the two
    neighbours of ``x``) to the rounding ``mode`` of ``x``."""
    if mode == "rn":
        return r
    rf = r.astype(F64)
    with np.errstate(invalid="ignore"):
        return toward(r, rf > x, rf < x, x > 0, x < 0, mode)


def toward(r: np.ndarray, above: np.ndarray, below: np.ndarray, positive: np.ndarray,
           negative: np.ndarray, mode: str) -> np.ndarray:
    """Correct ``r`` (one of the two neighbours of an exact value, or the value itself) to
    the rounding ``mode``, knowing only where ``r`` lies ``above`` or ``below`` the exact
    value and where that value is ``positive`` or ``negative`` (`directed` compares with a
    float64; rounded_arith.py decides exactly without forming the exact value)."""
    if mode == "rn":
        return r
    if mode == "rz":
        down, up = above & positive, below & negative
    elif mode == "rm":
        down, up = above, np.zeros_like(above)
    elif mode == "rp":
        down, up = np.zeros_like(above), below
    else:
        raise ValueError(f"unknown rounding mode {mode!r}")
    move = down | up
    if not move.any():
        return r
    return np.where(move, next_toward(r, up), r)


def round_float(x: np.ndarray, dt: np.dtype, mode: str = "rn") -> np.ndarray:
    """float64 ``x`` rounded to float ``dt`` in ``mode`` (rn, rz, rm, rp)."""
    if dt == F64:
        return x
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = x.astype(dt)
    return directed(x, nearest, mode)
