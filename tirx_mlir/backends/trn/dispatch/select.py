"""Trainium variant of tirx.select: ``nki.affine_select`` (GpSimd, SBUF only).

``dst[i] = pred(i) ? true_value[i] : false_value`` where ``pred`` is a conjunction of affine
constraints over the destination's indices and the op's symbols (loop variables, scope ids).
Per instruction the constraint ``e(i) + s >= 0`` (or ``== 0``) is rewritten in the instruction's
coordinates, ``offset + p * channel_multiplier + sum(f_d * step_d)``, the symbols' part ``s``
an index value added to the offset (``offset_index``), and each constraint is one affine_select
(the later ones select in place).
The value must be a full tile on one side and a constant on the other; when the constant is the
true value the predicate is negated and the sides swap (one constraint only: a negated
conjunction is a disjunction). Two constants: memset, then select in place. The instruction
loops are unrolled, since affine_select takes a constant offset. A guarded view (the partial last
tile of a loop) may be guarded on its partition dim only: the pattern's counts are constants.
"""

from __future__ import annotations

import itertools
import math

from xdsl.builder import Builder

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import COMPUTE, memset_value, plan_elementwise
from tirx_mlir.backends.trn.dispatch.plan import TilePlan
from tirx_mlir.backends.trn.memory import SBUF
from tirx_mlir.dialects.tirx import predicate, tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, constant_value, materialize
from tirx_mlir.dialects.tirx.predicate import format_affine_set
from tirx_mlir.dispatch import accepts_guards, fail, register_dispatch
from tirx_mlir.dispatch.builders import is_buffer, is_full, scope_of, shape_of

MAX_UNROLL = 4096


def linear_constraints(op: T.SelectOp) -> list[tuple[int, list[int], str, IndexExpr]]:
    """Each constraint as ``(c0, [a_0..a_{n-1}], kind, dynamic)`` meaning ``c0 + sum a_i d_i +
    dynamic  kind  0`` with kind ``>=`` or ``==`` and ``dynamic`` the symbols' part (an index
    expression of the op's ``symbols``); fails on non-linear constraints."""
    constraints = predicate.linear_constraints(op.where.data)
    if constraints is None:
        fail(f"select predicate {format_affine_set(op.where.data)} is not linear in the indices "
             f"and symbols; affine_select compares a linear expression with 0")
    out = []
    for c in constraints:
        dynamic = IndexExpr()
        for a, value in zip(c.sym_coeffs, op.symbols):
            dynamic = dynamic + IndexExpr.of(value).scale(a)
        out.append((c.const, list(c.coeffs), "==" if c.is_equality else ">=", dynamic))
    return out


def _negate(c0: int, coeffs: list[int], kind: str, dynamic: IndexExpr
            ) -> tuple[int, list[int], str, IndexExpr]:
    if kind == "==":
        return c0, coeffs, "!=", dynamic
    # not(v >= 0)  <=>  -v - 1 >= 0
    return -c0 - 1, [-a for a in coeffs], ">=", dynamic.scale(-1)


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
    constraints = linear_constraints(op)
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
    if any(j != plan.pdim for j in plan.guards):
        fail("a guarded free dim: affine_select's pattern counts its free elements by "
             "constants; guard the partition dim (rows), or select over the full tile and "
             "copy the guarded part")
    counts = plan.loop_counts(plan.loops)
    if math.prod(counts) > MAX_UNROLL:
        fail(f"{math.prod(counts)} instructions would be unrolled (affine_select takes constant "
             f"offsets); raise max_inst_size")
    weights = _weights(plan)
    free = [j for j in plan.free_order() if plan.chunk.get(j, 1) > 1]
    fill = memset_value(b, float(t_const), dst) if on_true is None else None
    dynamic = [materialize(b, expr) for *_, expr in constraints]  # once, before the unrolling
    for block in itertools.product(*(range(n) for n in counts)):
        ivs = {j: q * plan.chunk[j] for j, q in zip(plan.loops, block)}
        d = plan.instruction_view(b, ops["dst"], ivs)
        source = d
        if on_true is None:
            b.insert(nki.MemsetOp(d, fill))
        else:
            source = plan.instruction_view(b, ops["on_true"], ivs)
        for (c0, coeffs, kind, _), extra in zip(constraints, dynamic):
            offset = c0 + sum(coeffs[plan.origin[j]] * weights[j] * iv for j, iv in ivs.items())
            offset += extra if isinstance(extra, int) else 0
            cm = coeffs[plan.origin[plan.pdim]] * weights[plan.pdim] if plan.pdim is not None else 0
            pattern = [[coeffs[plan.origin[j]] * weights[j], plan.chunk[j]]
                       for j in free] or [[0, 1]]
            index = None if isinstance(extra, int) else extra
            b.insert(nki.AffineSelectOp(d, source, index, pattern=pattern, offset=offset,
                                        channel_multiplier=cm, cmp=CMP[kind], on_false=on_false))
            source = d


register_dispatch(T.SelectOp, "trn", variant="default", priority=10, when=COMPUTE)(
    accepts_guards(_select))

_ = Builder
