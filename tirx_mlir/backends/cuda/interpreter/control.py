"""Structured control flow on lane values: ``scf.if``, ``scf.for``, ``scf.while``, their
terminators and ``tirx.return``.

Divergence is handled per lane (see engine.py): a branch runs with the lanes that take it, a
loop keeps running with the lanes still inside it, and values that leave a region are merged
per lane. A loop whose bounds are the same on every active lane (the usual case) runs as a
plain Python loop; otherwise each lane leaves when its own bound is reached.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import scf

from tirx_mlir.backends.cuda.interpreter.engine import TERMINATOR, Fork
from tirx_mlir.backends.cuda.interpreter.impls import PLAIN, REGION, lane_impl
from tirx_mlir.dialects.tirx.kernel import ReturnOp


def select(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per lane ``a`` where ``cond`` else ``b``: a per-lane condition (``(L,)``) selects whole
    vector values, a vector condition (the values' shape) element by element."""
    if a.ndim > cond.ndim:
        cond = cond.reshape(cond.shape + (1,) * (a.ndim - 1))
    return np.where(cond, a, b)


@lane_impl(scf.YieldOp, scf.ConditionOp, ReturnOp, kind=PLAIN)
def run_terminator(ctx, op, args):
    return TERMINATOR


run_terminator.takes_deferred = True  # type: ignore[attr-defined]
"""A loop may carry values still in flight (wgmma accumulators between issue and wait) to its
next iteration; they are checked where an op reads them."""


@lane_impl(scf.IfOp, kind=REGION)
def run_if(ctx, op: scf.IfOp, args):
    cond = args[0]
    mask = ctx.mask
    taken = mask & cond
    other = mask & ~cond
    engine = ctx.engine
    has_else = bool(op.false_region.blocks)
    any_taken = bool(taken.any())
    any_other = bool(other.any()) and has_else
    if not any_other:
        if not any_taken:
            return ()
        return tuple((yield from engine.run_region(ctx, op.true_region, (), taken)))
    if not any_taken:
        return tuple((yield from engine.run_region(ctx, op.false_region, (), other)))
    if engine.may_block(op.true_region) or engine.may_block(op.false_region):
        then_values, else_values = yield Fork([(op.true_region, taken, ()),
                                               (op.false_region, other, ())])
    else:
        then_values = yield from engine.run_region(ctx, op.true_region, (), taken)
        else_values = yield from engine.run_region(ctx, op.false_region, (), other)
    return tuple(select(cond, a, b) for a, b in zip(then_values, else_values))


def _uniform(values: np.ndarray, mask: np.ndarray) -> int | None:
    active = values[mask]
    first = active[0]
    return int(first) if (active == first).all() else None


@lane_impl(scf.ForOp, kind=REGION)
def run_for(ctx, op: scf.ForOp, args):
    lb, ub, step, *values = args
    mask = ctx.mask
    engine = ctx.engine
    body = op.body
    if (step[mask] <= 0).any():
        bad = mask & (step <= 0)
        raise ctx.error(f"scf.for needs a positive step, got {int(step[bad][0])}", bad,
                        hint="use a step > 0 (count down by computing the index from a "
                             "counting-up loop)")
    lo, hi, st = _uniform(lb, mask), _uniform(ub, mask), _uniform(step, mask)
    if lo is not None and hi is not None and st is not None:
        for i in range(lo, hi, st):
            iv = np.full(lb.shape, i, dtype=lb.dtype)
            values = yield from engine.run_region(ctx, body, (iv, *values), mask)
        return tuple(values)
    iv = lb.copy()
    inside = mask & (iv < ub)
    while inside.any():
        new = yield from engine.run_region(ctx, body, (iv, *values), inside)
        values = [select(inside, n, v) for n, v in zip(new, values)]
        iv = np.where(inside, iv + step, iv)
        inside &= iv < ub
    return tuple(values)


@lane_impl(scf.WhileOp, kind=REGION)
def run_while(ctx, op: scf.WhileOp, args):
    engine = ctx.engine
    active = ctx.mask
    current = tuple(args)
    results = None
    while True:
        cond, *forwarded = yield from engine.run_region(ctx, op.before_region, current, active)
        leaving = active & ~cond
        if results is None:
            results = [v.copy() for v in forwarded]
        else:
            results = [select(leaving, v, r) for v, r in zip(forwarded, results)]
        active = active & cond
        if not active.any():
            return tuple(results)
        current = tuple((yield from engine.run_region(ctx, op.after_region, tuple(forwarded),
                                                     active)))
