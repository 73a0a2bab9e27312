"""``cuda-hoist-invariants``: loop-invariant index arithmetic computed once, before its loop.

Dispatch builds every address where it is used: a pipelined K loop's prefetch (under the
``scf.if`` of its last stages) recomputes each thread's swizzled shared offsets and global
offsets every iteration, though only the K offset changes. xDSL's ``licm`` moves invariant ops
of a loop body's top level only; ptxas does not move them out of the branch either. This pass
moves an integer ``arith`` op out of the ``scf.for`` around it when none of its operands is
defined inside that loop, from any depth of the body (``scf.if`` regions included), innermost
loops first, so a chain of invariant ops leaves together.

Moving an op out of an ``scf.if`` makes it run when the branch would not: only ops that cannot
fault move (no division or remainder unless by a non-zero constant), so every value and every
side effect is what it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.dialects.tirx.access import constant_value

_MOVABLE = (arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndIOp,
            arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp,
            arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp, arith.IndexCastOp,
            arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.CmpiOp, arith.SelectOp)
_DIVIDING = (arith.DivUIOp, arith.RemUIOp, arith.DivSIOp, arith.RemSIOp)


def movable(op: Operation) -> bool:
    """Pure and unable to fault (a division by a non-zero constant divisor only)."""
    if isinstance(op, _MOVABLE):
        return True
    if isinstance(op, _DIVIDING):
        d = constant_value(op.operands[1])
        return isinstance(d, int) and d != 0 and not (d == -1 and isinstance(
            op, arith.DivSIOp | arith.RemSIOp))
    return False


def hoist_out_of(loop: scf.ForOp) -> int:
    """Move ``loop``'s invariant ops before it (program order: a moved op's users are checked
    after it); the number moved."""
    body = loop.body

    def inside(v: SSAValue) -> bool:
        owner = v.owner
        if isinstance(owner, Operation):
            return body.is_ancestor(owner)
        return owner.parent_op() is loop or body.is_ancestor(owner.parent_op())

    moved = 0
    for op in list(body.walk()):
        if not movable(op) or any(inside(v) for v in op.operands):
            continue
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(loop))
        moved += 1
    return moved


@dataclass(frozen=True)
class CudaHoistInvariantsPass(ModulePass):
    """Loop-invariant integer arithmetic moved before its loop, from any depth of the body."""

    name = "cuda-hoist-invariants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = [o for o in op.walk() if isinstance(o, scf.ForOp)]
        for loop in reversed(loops):  # innermost first: pre-order, reversed
            hoist_out_of(loop)
