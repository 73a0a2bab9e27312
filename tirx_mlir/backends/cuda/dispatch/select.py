"""The CUDA variant of tirx.select: ``dst[i] = where(i) ? true_value[i] : false_value[i]``.

``default`` (priority 10): the elementwise engine (`pointwise.lower`) with the element's
destination coordinate; each linear constraint ``sum(a_k * d_k) + sum(b_j * s_j) + c
(>= | ==) 0`` of the predicate (``s_j`` the op's ``symbols``) becomes index arithmetic on that
coordinate (its thread part is shared between the thread's elements, its register part folds
into the constant) and a signed comparison; the
constraints are and-ed and pick the value with ``arith.select``. A predicate with a non-linear
constraint (mod, floordiv) declines.
"""

from __future__ import annotations

from xdsl.dialects import arith

from tirx_mlir.backends.cuda.dispatch import common, pointwise
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index
from tirx_mlir.dialects.tirx.predicate import linear_constraints
from tirx_mlir.dispatch import exec_scope_in, fail

SCOPES = exec_scope_in("thread", "warp", "warpgroup", "cta")


def _select(op: T.SelectOp, ctx) -> None:
    constraints = linear_constraints(op.where.data)
    if constraints is None:
        fail("the predicate has a constraint that is not linear in the indices")

    def at(b, xs, coord):
        t, f = xs
        cond = None
        for c in constraints:
            expr = IndexExpr(c.const)
            for a, s in zip(c.sym_coeffs, op.symbols):  # loop variables, scope ids
                expr = expr + IndexExpr.of(s).scale(a)
            for a, d in zip(c.coeffs, coord):
                expr = expr + IndexExpr.of(d).scale(a)
            value = common.index_value(b, common.materialize_cached(b, expr, None))
            test = b.insert(arith.CmpiOp(value, const_index(b, 0),
                                         "eq" if c.is_equality else "sge")).result
            cond = test if cond is None else b.insert(arith.AndIOp(cond, test)).result
        if cond is None:
            return t
        return b.insert(arith.SelectOp(cond, t, f)).result

    pointwise.lower(op, ctx, op.dst, [op.true_value, op.false_value], None, at=at)


common.cuda_variant(T.SelectOp, "default", 10,
                    [SCOPES, common.ONE_DIM_BLOCK,
                     common.operands_in(GLOBAL, LOCAL, *SHARED_SCOPES)])(_select)
