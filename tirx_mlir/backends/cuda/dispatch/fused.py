"""CUDA variants of the fused tile primitives unary_reduce, binary_reduce and binary_chain.

TIRx has no CUDA variant for them (its fused primitives are Trainium instructions); ours,
``decompose`` (10), writes them as the primitives they fuse on the same operands and exec scope,
each dispatched in turn (the elementwise engine, then `reduction`):

* ``unary_reduce``: the unary op into ``un_out``, then the reduction of ``un_out``;
* ``binary_reduce``: the binary op into ``bin_out``, then the reduction of ``bin_out``;
* ``binary_chain`` ``out = (data op0 operand0) op1 operand1`` (``reverse1``: ``operand1 op1
  (...)``): the first step into ``out``, then the second in place.

The steps store their intermediate results, which the tile semantics keep unrounded: the
variant declines when the intermediate's buffer is narrower than f32 (`decompose.exact_in_steps`),
and a chain whose ``operand1`` is ``out``'s own memory (the first step would overwrite it).
"""

from __future__ import annotations

from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.dispatch.reduction import SCOPES
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.dispatch import decompose, fail
from tirx_mlir.dispatch.builders import elem_type, insert_tile_op, is_buffer


def _exact(out, what: str) -> None:
    if not decompose.exact_in_steps(out):
        fail(f"{what} is {elem_type(out)}: the tile semantics use the unrounded values, which "
             f"the steps would round to {elem_type(out)} first; give {what} f32")


def _unary_reduce(op: T.UnaryReduceOp, ctx) -> None:
    _exact(op.un_out, "un_out")
    decompose.unary_reduce(op, ctx)


def _binary_reduce(op: T.BinaryReduceOp, ctx) -> None:
    _exact(op.bin_out, "bin_out")
    decompose.binary_reduce(op, ctx)


def _binary_chain(op: T.BinaryChainOp, ctx) -> None:
    _exact(op.out, "out")
    out = resolve_access(op.out).buffer
    if is_buffer(op.operand1) and resolve_access(op.operand1).buffer is out:
        fail("operand1 lives in out's memory, which the first step overwrites")
    b, scope = ctx.builder, op.exec_scope
    insert_tile_op(b, decompose.BINARY[op.op0.data](op.out, op.data, op.operand0, scope=scope),
                   op)
    second = decompose.BINARY[op.op1.data]
    lhs, rhs = (op.operand1, op.out) if op.flag("reverse1") else (op.out, op.operand1)
    insert_tile_op(b, second(op.out, lhs, rhs, scope=scope), op)


WHEN = [SCOPES, common.ONE_DIM_BLOCK, common.operands_in(GLOBAL, LOCAL, *SHARED_SCOPES)]

for _cls, _impl in ((T.UnaryReduceOp, _unary_reduce), (T.BinaryReduceOp, _binary_reduce),
                    (T.BinaryChainOp, _binary_chain)):
    common.cuda_variant(_cls, "decompose", 10, WHEN, barriers=False)(_impl)
