"""Every ``arith`` op (all 47 of xDSL 0.74's dialect) on lane arrays: `ARITH_LANES` maps an op
class to ``fn(op, args, mask) -> results``, with the core interpreter's results
(tirx_mlir/interpreter/arith.py) lane by lane. ``args`` are the operands' lane arrays,
``mask`` the active lanes ((L,) bool); an undefined operation on an active lane raises
`lanes.LaneFault`. Per-op facts (widths, dtypes) are computed once per op.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.ir import Operation

from tirx_mlir.backends.cuda.interpreter.lane_ops import floating, integer
from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import (as_int, int_width, lane_dtype,
                                                                round_to, wrap)
from tirx_mlir.interpreter.arith import wrap as scalar_wrap
from tirx_mlir.interpreter.runtime import PerOpCache

LaneFn = Callable[[Operation, tuple, np.ndarray], tuple]

_facts = PerOpCache()


def result_width(op: Operation) -> int:
    return _facts.get(op, "rw", lambda: int_width(op.results[0].type))


def operand_width(op: Operation) -> int:
    return _facts.get(op, "ow", lambda: int_width(op.operands[0].type))


def result_dtype(op: Operation) -> np.dtype:
    return _facts.get(op, "rd", lambda: lane_dtype(op.results[0].type))


def predicate(op: Operation) -> int:
    return _facts.get(op, "pred", lambda: op.predicate.value.data)


ARITH_LANES: dict[type[Operation], LaneFn] = {}


def _register(*op_types):
    def add(fn):
        for op_type in op_types:
            ARITH_LANES[op_type] = fn
        return fn
    return add


# --- constants and select ------------------------------------------------------------------------


def constant_value(op: arith.ConstantOp) -> np.ndarray:
    """One lane's value of an ``arith.constant``: a scalar, or the elements of a vector (rounded
    to the type: integers wrap, floats round to nearest even)."""
    value, t = op.value, op.result.type
    dt = lane_dtype(t)
    if isinstance(value, IntegerAttr):
        return np.asarray(scalar_wrap(value.value.data, int_width(t)), dtype=dt)
    if isinstance(value, FloatAttr):
        return round_to(np.asarray(value.value.data, dtype=np.float64), dt)
    if isinstance(value, DenseIntOrFPElementsAttr):
        data = value.get_values()
        if dt.kind in "iub":
            width = int_width(t)
            elements = np.asarray([scalar_wrap(int(v), width) for v in data], dtype=dt)
        else:
            elements = round_to(np.asarray(data, dtype=np.float64), dt)
        return np.broadcast_to(elements, tuple(t.get_shape())).copy()
    raise ValueError(f"unsupported constant {value}")


@_register(arith.ConstantOp)
def _constant(op, args, mask):
    value = _facts.get(op, "const", lambda: constant_value(op))
    return (np.broadcast_to(value, (mask.shape[0], *value.shape)).copy(),)


@_register(arith.SelectOp)
def _select(op, args, mask):
    cond, lhs, rhs = args
    if cond.ndim < lhs.ndim:
        cond = cond.reshape(cond.shape + (1,) * (lhs.ndim - cond.ndim))
    return (np.where(cond, lhs, rhs),)


# --- integer arithmetic --------------------------------------------------------------------------


def _wrapping(fn):
    def run(op, args, mask):
        return (wrap(fn(as_int(args[0]), as_int(args[1])), result_width(op)),)
    return run


for _op, _fn in ((arith.AddiOp, np.add), (arith.SubiOp, np.subtract),
                 (arith.MuliOp, np.multiply), (arith.MaxSIOp, np.maximum),
                 (arith.MinSIOp, np.minimum), (arith.AndIOp, np.bitwise_and),
                 (arith.OrIOp, np.bitwise_or), (arith.XOrIOp, np.bitwise_xor)):
    ARITH_LANES[_op] = _wrapping(_fn)


def _unsigned(fn):
    def run(op, args, mask):
        return (integer.unsigned_binary(fn, args[0], args[1], result_width(op)),)
    return run


ARITH_LANES[arith.MaxUIOp] = _unsigned(np.maximum)
ARITH_LANES[arith.MinUIOp] = _unsigned(np.minimum)


def _checked(fn):
    """An op whose lane function takes the mask (division, shifts)."""
    def run(op, args, mask):
        return (fn(args[0], args[1], result_width(op), mask),)
    return run


for _op, _fn in ((arith.DivSIOp, integer.divsi), (arith.DivUIOp, integer.divui),
                 (arith.RemSIOp, integer.remsi), (arith.RemUIOp, integer.remui),
                 (arith.FloorDivSIOp, integer.floordivsi), (arith.CeilDivSIOp, integer.ceildivsi),
                 (arith.CeilDivUIOp, integer.ceildivui), (arith.ShLIOp, integer.shli),
                 (arith.ShRSIOp, integer.shrsi), (arith.ShRUIOp, integer.shrui)):
    ARITH_LANES[_op] = _checked(_fn)


@_register(arith.AddUIExtendedOp)
def _addui_extended(op, args, mask):
    return integer.addui_extended(args[0], args[1], result_width(op))


@_register(arith.MulSIExtendedOp, arith.MulUIExtendedOp)
def _mul_extended(op, args, mask):
    return integer.mul_extended(args[0], args[1], result_width(op),
                                isinstance(op, arith.MulSIExtendedOp))


@_register(arith.CmpiOp)
def _cmpi(op, args, mask):
    return (integer.cmpi(predicate(op), args[0], args[1], operand_width(op)),)


# --- floats --------------------------------------------------------------------------------------


def _float_binary(fn):
    def run(op, args, mask):
        return (floating.binary(fn, args[0], args[1], result_dtype(op)),)
    return run


for _op, _fn in ((arith.AddfOp, np.add), (arith.SubfOp, np.subtract),
                 (arith.MulfOp, np.multiply), (arith.DivfOp, np.true_divide),
                 (arith.MaxnumfOp, floating.maxnum), (arith.MinnumfOp, floating.minnum)):
    ARITH_LANES[_op] = _float_binary(_fn)


@_register(arith.MaximumfOp, arith.MinimumfOp)
def _ieee_max_min(op, args, mask):
    return (floating.ieee_max_min(args[0], args[1], isinstance(op, arith.MaximumfOp)),)


@_register(arith.NegfOp)
def _negf(op, args, mask):
    return (np.negative(args[0]),)


@_register(arith.CmpfOp)
def _cmpf(op, args, mask):
    return (floating.cmpf(predicate(op), args[0], args[1]),)


# --- conversions ---------------------------------------------------------------------------------


@_register(arith.ExtFOp)
def _extf(op, args, mask):
    return (floating.extf(args[0], result_dtype(op)),)


@_register(arith.TruncFOp)
def _truncf(op, args, mask):
    return (floating.truncf(args[0], result_dtype(op)),)


@_register(arith.SIToFPOp)
def _sitofp(op, args, mask):
    return (floating.sitofp(args[0], result_dtype(op)),)


@_register(arith.UIToFPOp)
def _uitofp(op, args, mask):
    return (floating.uitofp(args[0], operand_width(op), result_dtype(op)),)


@_register(arith.FPToSIOp, arith.FPToUIOp)
def _fptoi(op, args, mask):
    return (floating.fptoi(args[0], result_width(op), isinstance(op, arith.FPToSIOp)),)


@_register(arith.ExtSIOp)
def _extsi(op, args, mask):
    return (integer.extsi(args[0], result_width(op)),)


@_register(arith.ExtUIOp)
def _extui(op, args, mask):
    return (integer.extui(args[0], operand_width(op), result_width(op)),)


@_register(arith.TruncIOp, arith.IndexCastOp)
def _trunc_int(op, args, mask):
    return (integer.trunc_int(args[0], result_width(op)),)


@_register(arith.BitcastOp)
def _bitcast(op, args, mask):
    return (floating.bitcast(args[0], result_dtype(op)),)

