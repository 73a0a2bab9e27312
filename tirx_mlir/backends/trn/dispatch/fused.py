"""Trainium variants of binary_chain and compose_op.

* binary_chain ``out = (data op0 operand0) op1 operand1`` (``reverse1``: ``operand1 op1 (...)``):
  a two-operator ``nki.tensor_scalar`` when both operands are scalars or per-partition
  ``[P, 1]`` operands, ``nki.scalar_tensor_tensor`` when operand1 is a full tile (``default``,
  as TIRx); a full-tile operand0 (``decompose``) becomes two binary tile ops through a scratch
  tile.
* compose_op: ``fuse`` recognises what TIRx's fused primitives express (a unary op then a
  reduction of its result -> unary_reduce, e.g. exp + sum -> activation_reduce; a binary op then
  a reduction of its result -> binary_reduce; two binary ops chained in place ->
  binary_chain); ``inline`` (always possible) emits the body's ops in order. Either way the
  resulting tile ops are dispatched in turn. A body op whose ``rounding_mode`` NKI cannot
  honour (`rounding`) is not fused: inlined, it fails at its own dispatch.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.builtin import f32

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import (ALU, COMPUTE, THREAD_SCOPE, f32_scalar,
                                                    local_tile, plan_elementwise)
from tirx_mlir.backends.trn.dispatch.elementwise import operand_reader
from tirx_mlir.backends.trn.dispatch.rounding import rounding_refusal
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import guard_like
from tirx_mlir.dispatch import accepts_guards, fail, register_dispatch
from tirx_mlir.dispatch.builders import insert_tile_op, is_buffer, is_full, shape_of

BINARY_OPS = {"add": T.AddOp, "sub": T.SubOp, "mul": T.MulOp, "fdiv": T.FdivOp,
              "maximum": T.MaximumOp, "minimum": T.MinimumOp}
REDUCE_OPS = {T.SumOp: "sum", T.MaxOp: "max", T.MinOp: "min"}
UNARY_OPS = {T.ExpOp: "exp", T.Exp2Op: "exp2", T.SqrtOp: "sqrt", T.Log2Op: "log2",
             T.ReciprocalOp: "reciprocal", T.SiluOp: "silu"}


def _binary_chain(op: T.BinaryChainOp, ctx) -> None:
    shape = shape_of(op.out)
    if is_buffer(op.operand0) and is_full(op.operand0, shape):
        fail("operand0 is a full tile; the first operator of the chain is a tensor-scalar "
             "step (decompose handles this)")
    full1 = is_buffer(op.operand1) and is_full(op.operand1, shape)
    vectors = [n for n in ("operand0", "operand1") if is_buffer(getattr(op, n))
               and not (n == "operand1" and full1)]
    named = [("data", op.data)] + [(n, getattr(op, n)) for n in ("operand0", "operand1")
                                   if is_buffer(getattr(op, n))]
    plan, ops = plan_elementwise(ctx, op, op.out, named, vectors=vectors)
    b = ctx.builder
    scalars = {n: f32_scalar(b, getattr(op, n)) for n in ("operand0", "operand1")
               if not is_buffer(getattr(op, n))}
    op0, op1 = ALU[op.op0.data], ALU[op.op1.data]
    reverse1 = op.flag("reverse1")
    operand = operand_reader(plan, ops, scalars, vectors, b)

    def body(bb: Builder, ivs, _counters) -> None:
        out, data = plan.views(bb, ops, ivs, "dst", "data")
        o0, o1 = operand(bb, "operand0", ivs), operand(bb, "operand1", ivs)
        if full1:
            bb.insert(nki.ScalarTensorTensorOp(out, data, o0, o1, op0=op0, op1=op1,
                                               reverse1=reverse1))
        else:
            bb.insert(nki.TensorScalarOp(out, data, o0, o1, op0=op0, op1=op1,
                                         reverse1=reverse1))

    plan.emit(b, plan.loops, body)


def _binary_chain_decompose(op: T.BinaryChainOp, ctx) -> None:
    b = ctx.builder
    tmp = guard_like(b, local_tile(b, shape_of(op.out), f32), op.out)
    insert_tile_op(b, BINARY_OPS[op.op0.data](tmp, op.data, op.operand0), op)
    second = BINARY_OPS[op.op1.data]
    if op.flag("reverse1"):
        insert_tile_op(b, second(op.out, op.operand1, tmp), op)
    else:
        insert_tile_op(b, second(op.out, tmp, op.operand1), op)


register_dispatch(T.BinaryChainOp, "trn", variant="default", priority=10,
                  when=COMPUTE)(accepts_guards(_binary_chain))
register_dispatch(T.BinaryChainOp, "trn", variant="decompose", when=COMPUTE)(
    accepts_guards(_binary_chain_decompose))


# --- compose_op -----------------------------------------------------------------------------------


def _fused(body: list) -> T.TileOp | None:
    """The fused primitive equivalent to a two-op compose body, or None."""
    if len(body) != 2:
        return None
    first, second = body
    if type(second) in REDUCE_OPS and not second.flag("accum"):
        axes = list(second.ints_prop("axes", (-1,)))
        if second.src is not first.dst_operands()[0]:
            return None
        reduce = REDUCE_OPS[type(second)]
        if type(first) in UNARY_OPS:
            return T.UnaryReduceOp(first.dst, second.dst, first.src, getattr(first, "bias", None),
                                   getattr(first, "scale", None), unary=UNARY_OPS[type(first)],
                                   reduce=reduce, axes=axes)
        if isinstance(first, T._BinaryOp):  # noqa: SLF001
            return T.BinaryReduceOp(first.dst, second.dst, first.lhs, first.rhs,
                                    binary=first.FUNC, reduce=reduce, axes=axes)
        return None
    if isinstance(first, T._BinaryOp) and isinstance(second, T._BinaryOp):  # noqa: SLF001
        y = first.dst
        if second.dst is not y or first.lhs is y or first.rhs is y:
            return None
        if second.lhs is y and second.rhs is not y:
            return T.BinaryChainOp(y, first.lhs, first.rhs, second.rhs, op0=first.FUNC,
                                   op1=second.FUNC)
        if second.rhs is y and second.lhs is not y:
            return T.BinaryChainOp(y, first.lhs, first.rhs, second.lhs, op0=first.FUNC,
                                   op1=second.FUNC, reverse1=True)
    return None


def _compose_fuse(op: T.ComposeOp, ctx) -> None:
    body = list(op.body.block.ops)
    refused = next((why for why in map(rounding_refusal, body) if why), None)
    if refused:
        fail(f"a body op's rounding cannot be fused ({refused})")
    fused = _fused(body)
    if fused is None:
        fail("the body is not a fusable pattern (unary or binary op then a reduction of its "
             "result, or two binary ops chained in place)")
    if isinstance(fused, T.BinaryChainOp) and (
            is_buffer(fused.data) is False or (is_buffer(fused.operand0)
                                                and is_full(fused.operand0, shape_of(fused.out)))):
        fail("the chain's first step is not tensor-scalar")
    insert_tile_op(ctx.builder, fused, op)


def _compose_inline(op: T.ComposeOp, ctx) -> None:
    for inner in op.body.block.ops:
        ctx.builder.insert(inner.clone())


# The body's ops are on the compose op's views: a guarded view stays guarded in them.
register_dispatch(T.ComposeOp, "trn", variant="fuse", priority=10, when=(THREAD_SCOPE,))(
    accepts_guards(_compose_fuse))
register_dispatch(T.ComposeOp, "trn", variant="inline", when=(THREAD_SCOPE,))(
    accepts_guards(_compose_inline))
