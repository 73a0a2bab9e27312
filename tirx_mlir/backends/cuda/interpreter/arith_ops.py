"""``arith`` on lane values (the ops CUDA-level kernels use most; integer ops wrap, float results
round to their type, integer division by zero on an active lane is an error)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr

from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.values import full, lane_dtype

_UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
             np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def _u(a: np.ndarray) -> np.ndarray:
    return a.view(_UNSIGNED[a.dtype]) if a.dtype in _UNSIGNED else a


@lane_impl(arith.ConstantOp)
def run_constant(ctx, op, args):
    value = op.value
    t = op.result.type
    if isinstance(value, IntegerAttr):
        v = value.value.data
        if lane_dtype(t) == np.bool_:
            return (full(ctx.wave.L, bool(v & 1), t),)
        return (full(ctx.wave.L, np.array(v).astype(np.int64).astype(lane_dtype(t)), t),)
    if isinstance(value, FloatAttr):
        return (full(ctx.wave.L, value.value.data, t),)
    if isinstance(value, DenseIntOrFPElementsAttr):
        data = np.array(value.get_values(), dtype=lane_dtype(t))
        return (np.broadcast_to(data, (ctx.wave.L, *data.shape)).copy(),)
    raise ctx.error(f"unsupported constant {value}")


def _binary(fn):
    def run(ctx, op, args):
        return (fn(args[0], args[1]).astype(args[0].dtype, copy=False),)
    return run


for _op, _fn in ((arith.AddiOp, np.add), (arith.SubiOp, np.subtract),
                 (arith.MuliOp, np.multiply), (arith.AndIOp, np.bitwise_and),
                 (arith.OrIOp, np.bitwise_or), (arith.XOrIOp, np.bitwise_xor),
                 (arith.AddfOp, np.add), (arith.SubfOp, np.subtract),
                 (arith.MulfOp, np.multiply), (arith.DivfOp, np.divide),
                 (arith.MaxSIOp, np.maximum), (arith.MinSIOp, np.minimum)):
    lane_impl(_op)(_binary(_fn))


def _divisor_checked(ctx, b: np.ndarray) -> np.ndarray:
    zero = ctx.mask & (b == 0)
    if zero.any():
        raise ctx.error("integer division or remainder by zero", zero)
    return np.where(b == 0, 1, b)


@lane_impl(arith.DivUIOp)
def run_divui(ctx, op, args):
    a, b = args
    return ((_u(a) // _u(_divisor_checked(ctx, b))).view(a.dtype),)


@lane_impl(arith.RemUIOp)
def run_remui(ctx, op, args):
    a, b = args
    return ((_u(a) % _u(_divisor_checked(ctx, b))).view(a.dtype),)


@lane_impl(arith.DivSIOp)
def run_divsi(ctx, op, args):
    a, b = args
    b = _divisor_checked(ctx, b)
    q = np.abs(a) // np.abs(b)
    return (np.where((a < 0) != (b < 0), -q, q).astype(a.dtype),)


@lane_impl(arith.RemSIOp)
def run_remsi(ctx, op, args):
    a, b = args
    b = _divisor_checked(ctx, b)
    r = np.abs(a) % np.abs(b)
    return (np.where(a < 0, -r, r).astype(a.dtype),)


_CMPI = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
         5: np.greater_equal}


@lane_impl(arith.CmpiOp)
def run_cmpi(ctx, op, args):
    a, b = args
    pred = op.predicate.value.data
    if pred <= 5:
        return (_CMPI[pred](a, b),)
    return (_CMPI[pred - 4](_u(a), _u(b)),)


@lane_impl(arith.SelectOp)
def run_select(ctx, op, args):
    from tirx_mlir.backends.cuda.interpreter.control import select

    return (select(args[0], args[1], args[2]),)


@lane_impl(arith.ExtUIOp)
def run_extui(ctx, op, args):
    return (_u(args[0]).astype(lane_dtype(op.result.type)),)


@lane_impl(arith.ExtSIOp, arith.TruncIOp, arith.IndexCastOp)
def run_int_cast(ctx, op, args):
    dtype = lane_dtype(op.result.type)
    if dtype == np.bool_:  # truncation to i1 keeps the low bit
        return ((args[0] & 1).astype(bool),)
    return (args[0].astype(dtype),)
