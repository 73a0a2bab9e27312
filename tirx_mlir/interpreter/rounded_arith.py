"""f32 arithmetic in an explicit rounding mode, the one definition the interpreters share: the
tile level for TIRx's ``rounding_mode`` config on add, sub, mul, fdiv, fma, reciprocal and sqrt,
the CUDA SIMT interpreter for PTX ``{add,sub,mul,div,fma,rcp,sqrt}.{rn,rz,rm,rp}.f32``.

Each result is the exact result of the operation (``fma``: of ``a * b + c``, rounded once)
rounded to f32 in the mode (``rounding.FLOAT_MODES``). Method: numpy's float64 result rounded
to the nearest f32 is one of the two f32 neighbours of the exact value (float64 has 53 >= 2 *
24 + 2 bits, so the double rounding of +, -, *, / and sqrt is innocuous, and it is the right
``rn`` answer); `rounding.toward` then moves it one unit in the last place where it lies on
the wrong side of the exact value for the mode, which is decided exactly:

* add, sub, fma: the float64 sum ``s`` and its error ``e`` (Knuth's TwoSum; the product of two
  f32 values is exact in float64) hold the exact value ``s + e``: ``r`` lies above it where
  ``r > s``, or ``r == s`` and ``e < 0``;
* mul: the float64 product is exact;
* div: ``r`` lies above ``a / b`` where ``r * b > a`` for ``b > 0`` (``r * b`` is exact in
  float64), the other way for ``b < 0``; rcp is ``1 / a``;
* sqrt: ``r`` lies above ``sqrt(a)`` where ``r * r > a``.

Signed zeros (IEEE 754 section 6.3): a sum that is exactly zero from operands of opposite signs
(``x - x``, ``+0 + -0``) is ``+0`` in every mode but ``rm``, where it is ``-0``. Subnormal
results are kept (PTX without ``.ftz``); NaN and infinities come out as numpy computes them
(an overflow rounds to inf or to the largest finite value by the mode, `rounding.toward`).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.interpreter.rounding import F64, directed, toward

F32 = np.dtype(np.float32)
KINDS = ("add", "sub", "mul", "div", "fma", "rcp", "sqrt")


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=F64)


def _nearest(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(F32)


def _sum(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    """``a + b`` (float64 values, each exact) rounded once to f32 in ``mode``."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    e = np.where(np.isfinite(e), e, 0.0)
    r = _nearest(s)
    if mode == "rn":
        return r
    rf = r.astype(F64)
    with np.errstate(invalid="ignore"):
        on = rf == s
        r = toward(r, (rf > s) | (on & (e < 0)), (rf < s) | (on & (e > 0)), s > 0, s < 0, mode)
    if mode == "rm":  # an exact zero of a sum is -0 unless both operands are +0
        plus_zeros = (a == 0) & (b == 0) & ~np.signbit(a) & ~np.signbit(b)
        r = np.where((s == 0) & (e == 0) & ~plus_zeros, np.float32(-0.0), r)
    return r


def _div(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        q = a / b
    r = _nearest(q)
    if mode == "rn":
        return r
    with np.errstate(over="ignore", invalid="ignore"):
        rb = r.astype(F64) * b
        more, less = rb > a, rb < a
        positive = b > 0
        return toward(r, np.where(positive, more, less), np.where(positive, less, more),
                      q > 0, q < 0, mode)


def _sqrt(a: np.ndarray, mode: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        x = np.sqrt(a)
    r = _nearest(x)
    if mode == "rn":
        return r
    with np.errstate(over="ignore", invalid="ignore"):
        rf = r.astype(F64)
        square = rf * rf
        return toward(r, square > a, square < a, x > 0, np.zeros_like(x, dtype=bool), mode)


def rounded(kind: str, args, mode: str) -> np.ndarray:
    """``kind`` (`KINDS`) of the f32 values ``args`` (arrays or scalars, broadcast
    NumPy-style), as an f32 array rounded in ``mode``."""
    xs = np.broadcast_arrays(*(_f64(a) for a in args))
    if kind == "add":
        return _sum(xs[0], xs[1], mode)
    if kind == "sub":
        return _sum(xs[0], -xs[1], mode)
    if kind == "fma":
        return _sum(xs[0] * xs[1], xs[2], mode)
    if kind == "mul":
        x = xs[0] * xs[1]
        return directed(x, _nearest(x), mode)
    if kind == "div":
        return _div(xs[0], xs[1], mode)
    if kind == "rcp":
        return _div(np.ones_like(xs[0]), xs[0], mode)
    if kind == "sqrt":
        return _sqrt(xs[0], mode)
    raise ValueError(f"unknown rounded operation {kind!r}")
