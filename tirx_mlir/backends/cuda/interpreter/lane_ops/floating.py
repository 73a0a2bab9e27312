"""Float arithmetic and int/float conversions on lane arrays, with the core interpreter's
results (tirx_mlir/interpreter/arith.py is the scalar reference): results are computed in double
precision and rounded to nearest even in the result type (exact for +, -, *, / and sqrt of f32
and narrower: a double holds more than twice their precision); ``maximumf``/``minimumf`` are
IEEE 754-2019 maximum/minimum (NaN propagates, -0 < +0); ``fptosi``/``fptoui`` truncate toward
zero and saturate, NaN gives 0 (`runtime.convert`'s store rule); int -> float goes through a
double, as the core's ``float(int)`` does.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import (BOOL, F64, SIGNED, UNSIGNED,
                                                                as_int, as_unsigned, round_to,
                                                                to_f64)
from tirx_mlir.interpreter import runtime


NATIVE = frozenset((np.add, np.subtract, np.multiply, np.true_divide))
"""Operations numpy may run in the operands' own f16/f32 dtype: for +, -, * and / the double
result rounded to a format of p bits is the correctly rounded result whenever 53 >= 2p + 2
(double rounding is innocuous), which holds for f32 (p = 24); numpy's f16 arithmetic rounds an
f32 result, and 24 >= 2 * 11 + 2. So the native result is the core's double-then-round one."""
_NATIVE_DTYPES = frozenset((np.dtype(np.float16), np.dtype(np.float32), F64))


def binary(fn, a, b, dt):
    """``fn`` on the double values of ``a`` and ``b``, rounded to ``dt``."""
    if fn in NATIVE and dt in _NATIVE_DTYPES and a.dtype == dt and b.dtype == dt:
        return fn(a, b)
    return round_to(fn(to_f64(a), to_f64(b)), dt)


def unary(fn, a, dt):
    return round_to(fn(to_f64(a)), dt)


def ieee_max_min(a, b, is_max: bool):
    """IEEE 754-2019 ``maximum``/``minimum`` (``arith.maximumf``/``minimumf``): NaN if either
    is NaN, and -0.0 < +0.0."""
    x, y = to_f64(a), to_f64(b)
    pick = np.maximum(x, y) if is_max else np.minimum(x, y)
    zeros = (x == 0) & (y == 0)
    if zeros.any():  # both zero: max is -0 only when both are -0, min is +0 only when both are
        neg_x = np.signbit(x)
        by_sign = np.where(neg_x, y, x) if is_max else np.where(neg_x, x, y)
        pick = np.where(zeros, by_sign, pick)
    pick = np.where(np.isnan(x) | np.isnan(y), np.nan, pick)
    return pick.astype(a.dtype)


def _signaling(x: np.ndarray) -> np.ndarray:
    """Which float64 elements are signaling NaNs (quiet bit clear)."""
    quiet = (x.view(np.uint64) >> np.uint64(51)) & np.uint64(1)
    return np.isnan(x) & (quiet == 0)


def _num(x, y, keep_x):
    """IEEE 754-2008 maxNum/minNum on float64 arrays: a quiet NaN loses to a number, a
    signaling NaN makes the result NaN; ``keep_x`` says where ``x`` wins the comparison."""
    out = np.where(np.isnan(y) | keep_x, x, y)
    return np.where(_signaling(x) | _signaling(y), np.nan, out)


def maxnum(x, y):
    """``arith.maxnumf``: IEEE 754-2008 maxNum, as C's ``fmax`` (which the core's scalar
    ``np.fmax`` calls); of two equal operands (+0 and -0) the first (numpy's vectorised loop
    returns the second, so it is not used)."""
    return _num(x, y, x >= y)


def minnum(x, y):
    """``arith.minnumf``: IEEE 754-2008 minNum, ties to the first operand as `maxnum`."""
    return _num(x, y, x <= y)


_CMPF = {
    1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
    6: np.not_equal,
}
"""arith.cmpf ordered predicates 1..6 (oeq ogt oge olt ole one); 8..13 are the unordered
forms (ueq ugt uge ult ule une) of the same comparison; 0 false, 7 ord, 14 uno, 15 true."""


def cmpf(predicate: int, a, b):
    x, y = to_f64(a), to_f64(b)
    ordered = ~(np.isnan(x) | np.isnan(y))
    if predicate in (0, 15):
        return np.full(x.shape, predicate == 15, dtype=BOOL)
    if predicate in (7, 14):
        return ordered if predicate == 7 else ~ordered
    if predicate < 7:
        return ordered & _CMPF[predicate](x, y)
    return ~ordered | _CMPF[predicate - 7](x, y)


# --- conversions ---------------------------------------------------------------------------------


def sitofp(a, dt):
    return round_to(as_int(a).astype(F64), dt)


def uitofp(a, width, dt):
    return round_to(as_unsigned(a, width).astype(F64), dt)


def fptoi(a, width, signed: bool):
    """``fptosi``/``fptoui``: truncate toward zero and saturate to the (un)signed range, NaN -> 0;
    to i1: ``value != 0`` (so NaN gives true), as the core interpreter does."""
    if width == 1:
        return to_f64(a) != 0.0
    target = SIGNED[width] if signed else UNSIGNED[width]
    out = runtime.convert(to_f64(a), target)
    return out if signed else out.view(SIGNED[width])


def truncf(a, dt):
    return round_to(to_f64(a), dt)


def extf(a, dt):
    return a.astype(dt)


def bitcast(a, dt):
    """Reinterpret the bits of each element as ``dt`` (same width; ints in signed form)."""
    return np.ascontiguousarray(a).view(dt)

