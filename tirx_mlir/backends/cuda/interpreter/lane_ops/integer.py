"""Integer arithmetic on lane arrays, with the core interpreter's results (tirx_mlir/interpreter/
arith.py, math.py are the scalar reference): every result wraps to its width; division and
remainder by zero and shifts by the width or more are errors on the lanes that do them; signed
division truncates toward zero (``INT_MIN / -1`` wraps to ``INT_MIN``); an i1 reads as 0/1.

Each function takes the operands (lane arrays of the type's signed dtype), the width and the
active mask (for the checks) and returns lane arrays.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import (BOOL, I64, SIGNED, UNSIGNED,
                                                                as_int, as_unsigned,
                                                                check_lanes, wrap)

DIV_BY_ZERO = "integer division by zero (undefined behaviour in MLIR)"


def _divisor(b: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``b`` after checking no active lane divides by zero; inactive zero lanes divide by 1."""
    zero = b == 0
    check_lanes(zero, mask, DIV_BY_ZERO)
    return np.where(zero, np.ones_like(b), b)


def _floor_div(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floor quotient and remainder (sign of b), wrapping (``INT_MIN // -1 == INT_MIN``)."""
    q = np.floor_divide(a, b)
    return q, a - q * b


def divsi(a, b, width, mask):
    a, b = as_int(a), _divisor(as_int(b), mask)
    q, r = _floor_div(a, b)
    q = q + ((r != 0) & ((a < 0) != (b < 0))).astype(q.dtype)
    return wrap(q, width)


def remsi(a, b, width, mask):
    a, b = as_int(a), as_int(b)
    q = as_int(divsi(a, b, width, mask))
    return wrap(a - q * np.where(b == 0, np.ones_like(b), b), width)


def floordivsi(a, b, width, mask):
    return wrap(_floor_div(as_int(a), _divisor(as_int(b), mask))[0], width)


def ceildivsi(a, b, width, mask):
    q, r = _floor_div(as_int(a), _divisor(as_int(b), mask))
    return wrap(q + (r != 0).astype(q.dtype), width)


def _unsigned_divide(a, b, width, mask):
    ua, ub = as_unsigned(a, width), as_unsigned(_divisor(b, mask), width)
    return ua, ub, ua // ub


def divui(a, b, width, mask):
    return _view_signed(_unsigned_divide(a, b, width, mask)[2], width)


def remui(a, b, width, mask):
    ua, ub, q = _unsigned_divide(a, b, width, mask)
    return _view_signed(ua - q * ub, width)


def ceildivui(a, b, width, mask):
    ua, ub, q = _unsigned_divide(a, b, width, mask)
    return _view_signed(q + (ua % ub != 0).astype(q.dtype), width)


def _view_signed(u: np.ndarray, width: int) -> np.ndarray:
    """An unsigned result back in signed form."""
    if width == 1:
        return (u & 1).astype(BOOL)
    return u.astype(UNSIGNED[width], copy=False).view(SIGNED[width])


def unsigned_binary(fn, a, b, width):
    """``fn`` on the unsigned readings of ``a`` and ``b``, in signed form."""
    return _view_signed(fn(as_unsigned(a, width), as_unsigned(b, width)), width)


# --- shifts ----------------------------------------------------------------------------------


def _shift_amount(b: np.ndarray, a: np.ndarray, width: int, mask: np.ndarray) -> np.ndarray:
    """The shift amounts (unsigned) in ``a``'s dtype, after checking each active lane's is
    below the width; inactive lanes shift by 0."""
    amount = as_unsigned(b, width)
    over = amount >= width
    if not over.any():
        return amount.astype(a.dtype)
    active = over & mask.reshape(mask.shape + (1,) * (over.ndim - 1))
    if active.any():
        check_lanes(active, mask, f"shift by {int(amount[active][0])} bits of an i{width} "
                                  f"value (poison in MLIR)")
    return np.where(over, 0, amount).astype(a.dtype)


def shli(a, b, width, mask):
    x = as_int(a)
    return wrap(np.left_shift(x, _shift_amount(b, x, width, mask)), width)


def shrsi(a, b, width, mask):
    x = as_int(a)
    return wrap(np.right_shift(x, _shift_amount(b, x, width, mask)), width)


def shrui(a, b, width, mask):
    x = as_unsigned(a, width)
    return _view_signed(np.right_shift(x, _shift_amount(b, x, width, mask)), width)


# --- extended arithmetic -------------------------------------------------------------------------


def addui_extended(a, b, width):
    ua, ub = as_unsigned(a, width), as_unsigned(b, width)
    if width == 1:
        return (ua ^ ub).astype(BOOL), (ua & ub).astype(BOOL)
    total = ua + ub
    return total.view(SIGNED[width]), total < ua


def _mul_high_u64(ua: np.ndarray, ub: np.ndarray) -> np.ndarray:
    """High 64 bits of the 128-bit product of two uint64 arrays."""
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a0, a1, b0, b1 = ua & m32, ua >> s32, ub & m32, ub >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & m32) + (p10 & m32)
    return p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)


def mul_extended(a, b, width, signed: bool):
    """(low, high) halves of the double-width product (``mulsi_extended``/``mului_extended``)."""
    if width < 64:
        x = (as_int(a) if signed else as_unsigned(a, width)).astype(I64)
        y = (as_int(b) if signed else as_unsigned(b, width)).astype(I64)
        full = x * y
        return wrap(full, width), wrap(full >> width, width)
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    high = _mul_high_u64(ua, ub)
    if signed:  # hi_s = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0)  (mod 2**64)
        high = high - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
    return (ua * ub).view(I64), high.view(I64)


# --- comparisons and casts -----------------------------------------------------------------------

_CMPI = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)
"""arith.cmpi predicates 0..5 (eq ne slt sle sgt sge); 6..9 are ult ule ugt uge."""


def cmpi(predicate: int, a, b, width):
    if predicate >= 6:
        return _CMPI[predicate - 4](as_unsigned(a, width), as_unsigned(b, width))
    return _CMPI[predicate](as_int(a), as_int(b))


def extsi(a, width):
    if a.dtype == BOOL:  # an i1 true sign-extends to all ones
        return np.where(a, -1, 0).astype(SIGNED[width])
    return a.astype(SIGNED[width])


def extui(a, src_width, width):
    return wrap(as_unsigned(a, src_width), width)


def trunc_int(a, width):
    """``trunci``/``index_cast``: wrap to ``width`` (an i1 source reads as 0/1)."""
    return wrap(as_int(a), width)


# --- math dialect integer ops --------------------------------------------------------------------


def ipowi(base, exp, width):
    """MLIR ``math.ipowi``: wrapping power; a negative exponent gives 0 unless the base is 1
    (-> 1) or -1 (-> +-1 by the exponent's parity)."""
    b, e = as_int(base).astype(I64), as_int(exp).astype(I64)
    result = np.ones_like(b)
    power, n = b.copy(), np.where(e > 0, e, 0)
    while n.any():
        result = np.where(n & 1, result * power, result)
        power = power * power
        n = n >> 1
    negative = e < 0
    if negative.any():
        odd = (e & 1) != 0
        special = np.where(b == 1, 1, np.where(b == -1, np.where(odd, -1, 1), 0))
        result = np.where(negative, special, result)
    return wrap(result, width)


def absi(a, width):
    return wrap(np.abs(as_int(a)), width)


def ctpop(a, width):
    return np.bitwise_count(as_unsigned(a, width)).astype(SIGNED[width]) if width > 1 else a.copy()


def _bit_length(u: np.ndarray, width: int) -> np.ndarray:
    """Number of significant bits of each unsigned element (0 for 0)."""
    length = np.zeros(u.shape, dtype=I64)
    x = u.copy()
    step = max(width // 2, 1)
    while step:
        big = (x >> np.asarray(step, dtype=x.dtype)) != 0
        length += np.where(big, step, 0)
        x = np.where(big, x >> np.asarray(step, dtype=x.dtype), x)
        step //= 2
    return length + (x != 0)


def ctlz(a, width):
    return wrap(width - _bit_length(as_unsigned(a, width), width), width)


def cttz(a, width):
    u = as_unsigned(a, width)
    lowest = u & (~u + np.asarray(1, dtype=u.dtype))
    return wrap(np.where(u == 0, width, _bit_length(lowest, width) - 1), width)
