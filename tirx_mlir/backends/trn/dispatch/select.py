"""Trainium variant of tirx.select: ``nki.affine_select`` (GpSimd, SBUF only).

``dst[i] = pred(i) ? true_value[i] : false_value`` where ``pred`` is a conjunction of affine
constraints over the destination's indices. Per instruction the constraint ``e(i) >= 0`` (or
``== 0``) is rewritten in the instruction's coordinates, ``offset + p * channel_multiplier +
sum(f_d * step_d)``, and each constraint is one affine_select (the later ones select in place).
The value must be a full tile on one side and a constant on the other; when the constant is the
true value the predicate is negated and the sides swap (one constraint only: a negated
conjunction is a disjunction). Two constants: memset, then select in place. The instruction
loops are unrolled, since affine_select takes a constant offset.
"""

from __future__ import annotations

import itertools
import math
import random

from xdsl.builder import Builder
from xdsl.ir.affine import AffineSet
from xdsl.ir.affine.affine_set import AffineConstraintKind

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import COMPUTE, memset_value, plan_elementwise
from tirx_mlir.backends.trn.dispatch.plan import TilePlan
from tirx_mlir.backends.trn.memory import SBUF
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dispatch import fail, register_dispatch
from tirx_mlir.dispatch.builders import is_buffer, is_full, scope_of, shape_of

MAX_UNROLL = 4096


def linear_constraints(aset: AffineSet, rank: int) -> list[tuple[int, list[int], str]]:
    """Each constraint as ``(c0, [a_0..a_{n-1}], kind)`` meaning ``c0 + sum a_i d_i  kind  0``
    with kind ``>=`` or ``==`` (``<=`` is negated into ``>=``); fails on non-linear ones."""
    out = []
    for constraint in aset.constraints:
        def value(point: list[int]) -> int:
            return constraint.lhs.eval(point, []) - constraint.rhs.eval(point, [])

        c0 = value([0] * rank)
        coeffs = [value([1 if j == i else 0 for j in range(rank)]) - c0 for i in range(rank)]
        rng = random.Random(rank)
        for _ in range(8):
            point = [rng.randrange(-64, 64) for _ in range(rank)]
            if value(point) != c0 + sum(a * x for a, x in zip(coeffs, point)):
                fail(f"select predicate {constraint} is not linear in the indices; "
                     f"affine_select compares a linear expression with 0")
        if constraint.kind == AffineConstraintKind.le:
            c0, coeffs = -c0, [-a for a in coeffs]
        kind = "==" if constraint.kind == AffineConstraintKind.eq else ">="
        out.append((c0, coeffs, kind))
    return out


def _negate(c0: int, coeffs: list[int], kind: str) -> tuple[int, list[int], str]:
    if kind == "==":
        return c0, coeffs, "!="
    return -c0 - 1, [-a for a in coeffs], ">="  # not(v >= 0)  <=>  -v - 1 >= 0


CMP = {">=": "greater_equal", "==": "equal", "!=": "not_equal"}


def _weights(plan: TilePlan) -> list[int]:
    """Index weight of each refined dim in its original dim (inner pieces weigh 1)."""
    weights = [0] * len(plan.sizes)
    for j in range(len(plan.sizes)):
        weights[j] = math.prod(plan.sizes[i] for i in range(j + 1, len(plan.sizes))
                               if plan.origin[i] == plan.origin[j])
    return weights


def _select(op: T.SelectOp, ctx) -> None:
    dst, tv, fv = op.dst, op.true_value, op.false_value
    shape = shape_of(dst)
    if scope_of(dst) != SBUF:
        fail("affine_select runs on GpSimd, which writes SBUF only")
    constraints = linear_constraints(op.where.data, len(shape))
    t_full, f_full = (is_buffer(v) and is_full(v, shape) for v in (tv, fv))
    t_const, f_const = constant_value(tv), constant_value(fv)
    b = ctx.builder
    if t_full and f_const is not None:
        on_true, on_false = tv, float(f_const)
    elif f_full and t_const is not None:
        if len(constraints) != 1:
            fail("the constant is the true value and the predicate has several constraints; "
                 "its negation is a disjunction, which affine_select cannot express")
        constraints = [_negate(*constraints[0])]
        on_true, on_false = fv, float(t_const)
    elif t_const is not None and f_const is not None:
        on_true, on_false = None, float(f_const)
    else:
        fail("affine_select needs a full tile on one side and a constant on the other")
    if on_true is not None and scope_of(on_true) != SBUF:
        fail("the selected tile must be in SBUF (GpSimd cannot read PSUM)")
    named = [("on_true", on_true)] if on_true is not None else []
    plan, ops = plan_elementwise(ctx, op, dst, named)
    counts = plan.loop_counts(plan.loops)
    if math.prod(counts) > MAX_UNROLL:
        fail(f"{math.prod(counts)} instructions would be unrolled (affine_select takes constant "
             f"offsets); raise max_inst_size")
    weights = _weights(plan)
    free = [j for j in plan.free_order() if plan.chunk.get(j, 1) > 1]
    fill = memset_value(b, float(t_const), dst) if on_true is None else None
    for block in itertools.product(*(range(n) for n in counts)):
        ivs = {j: q * plan.chunk[j] for j, q in zip(plan.loops, block)}
        d = plan.instruction_view(b, ops["dst"], ivs)
        source = d
        if on_true is None:
            b.insert(nki.MemsetOp(d, fill))
        else:
            source = plan.instruction_view(b, ops["on_true"], ivs)
        for c0, coeffs, kind in constraints:
            offset = c0 + sum(coeffs[plan.origin[j]] * weights[j] * iv for j, iv in ivs.items())
            cm = coeffs[plan.origin[plan.pdim]] * weights[plan.pdim] if plan.pdim is not None else 0
            pattern = [[coeffs[plan.origin[j]] * weights[j], plan.chunk[j]]
                       for j in free] or [[0, 1]]
            b.insert(nki.AffineSelectOp(d, source, pattern=pattern, offset=offset,
                                        channel_multiplier=cm, cmp=CMP[kind], on_false=on_false))
            source = d


register_dispatch(T.SelectOp, "trn", variant="default", priority=10, when=COMPUTE)(_select)

_ = Builder
