"""Every ``math`` op the core interpreter implements (tirx_mlir/interpreter/math.py: all 39 of
xDSL 0.74's dialect) on lane arrays: `MATH_LANES` maps an op class to ``fn(op, args, mask) ->
results``. Float functions are the core's own table (`FLOAT_UNARY`, `FLOAT_BINARY`: numpy in
double precision, rounded to the result type), applied to whole lane arrays; integer ops work on
the bits at the value's width.
"""

from __future__ import annotations

import math as pymath

import numpy as np
from xdsl.dialects import math

from tirx_mlir.backends.cuda.interpreter.lane_ops import floating, integer
from tirx_mlir.backends.cuda.interpreter.lane_ops.arith_lanes import (LaneFn, result_dtype,
                                                                      result_width)
from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import F64, round_to, to_f64
from tirx_mlir.interpreter import math as core_math
from tirx_mlir.interpreter.math import FLOAT_BINARY, FLOAT_UNARY

_ERF = np.frompyfunc(pymath.erf, 1, 1)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """``math.round`` over an array: the core's formula (half away from zero), lane by lane."""
    return np.where(np.isfinite(x), np.copysign(np.floor(np.abs(x) + 0.5), x), x)


_SCALAR_POWER = np.frompyfunc(lambda x, y: np.power(np.float64(x), np.float64(y)), 2, 1)


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.power`` lane by lane on numpy float64 scalars, as the core calls it: numpy's array
    loop differs from its scalar path in the last bit for some inputs, and in special cases
    (``pow(-inf, 0.5)``)."""
    return _SCALAR_POWER(x, y).astype(F64)


_ARRAY_FORMS = {pymath.erf: lambda x: _ERF(x).astype(F64), core_math._round_half_away:
                _round_half_away, np.power: _power}
"""The core's functions whose array form differs from (or is missing for) the scalar one, as
functions of float64 arrays with the scalar results."""


MATH_LANES: dict[type, LaneFn] = {}


def _unary(fn):
    fn = _ARRAY_FORMS.get(fn, fn)

    def run(op, args, mask):
        return (floating.unary(fn, args[0], result_dtype(op)),)
    return run


def _binary(fn):
    fn = _ARRAY_FORMS.get(fn, fn)

    def run(op, args, mask):
        return (floating.binary(fn, args[0], args[1], result_dtype(op)),)
    return run


for _op, _fn in FLOAT_UNARY.items():
    MATH_LANES[_op] = _unary(_fn)
for _op, _fn in FLOAT_BINARY.items():
    MATH_LANES[_op] = _binary(_fn)


def _fma(op, args, mask):
    a, b, c = (to_f64(x) for x in args)
    return (round_to(a * b + c, result_dtype(op)),)


def _fpowi(op, args, mask):
    return (round_to(_power(to_f64(args[0]), args[1].astype(F64)), result_dtype(op)),)


def _int_unary(fn):
    def run(op, args, mask):
        return (fn(args[0], result_width(op)),)
    return run


def _ipowi(op, args, mask):
    return (integer.ipowi(args[0], args[1], result_width(op)),)


MATH_LANES.update({
    math.FmaOp: _fma, math.FPowIOp: _fpowi, math.IPowIOp: _ipowi,
    math.AbsIOp: _int_unary(integer.absi), math.CountLeadingZerosOp: _int_unary(integer.ctlz),
    math.CountTrailingZerosOp: _int_unary(integer.cttz), math.CtPopOp: _int_unary(integer.ctpop),
})
