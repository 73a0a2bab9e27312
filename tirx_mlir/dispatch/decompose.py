"""Fused tile primitives as the primitives they fuse, for a backend without a fused instruction:

* ``unary_reduce``: the unary op into ``un_out``, then the reduction of ``un_out``;
* ``binary_reduce``: the binary op into ``bin_out``, then the reduction of ``bin_out``.

Each inserted op keeps the fused op's exec scope and source location (`insert_tile_op`) and is
dispatched in turn by ``tirx-dispatch``. The tile semantics reduce the computed values before
they are rounded to the elementwise output's type; the decomposition reduces the stored output,
so it is exact when that output holds the compute type (`exact_in_steps`), which a backend may
require.
"""

from __future__ import annotations

from tirx_mlir.dialects.tirx import dtypes, tile_ops as T
from tirx_mlir.dispatch.builders import elem_type, insert_tile_op
from tirx_mlir.dispatch.registry import fail

UNARY_BIAS_SCALE = {"exp": T.ExpOp, "exp2": T.Exp2Op, "sqrt": T.SqrtOp, "log2": T.Log2Op}
UNARY_PLAIN = {"reciprocal": T.ReciprocalOp, "silu": T.SiluOp}
BINARY = {"add": T.AddOp, "sub": T.SubOp, "mul": T.MulOp, "fdiv": T.FdivOp,
          "maximum": T.MaximumOp, "minimum": T.MinimumOp}
REDUCE = {"sum": T.SumOp, "max": T.MaxOp, "min": T.MinOp}
"""Function name (rules.UNARY_FUNCS / BINARY_FUNCS / REDUCE_FUNCS) -> tile primitive."""


def exact_in_steps(out) -> bool:
    """Whether an elementwise output holds values unrounded (f32 or f64)."""
    t = elem_type(out)
    return dtypes.is_float(t) and dtypes.bit_width(t) >= 32


def unary_reduce(op: T.UnaryReduceOp, ctx) -> None:
    b, scope = ctx.builder, op.exec_scope
    name = op.unary.data
    if name in UNARY_BIAS_SCALE:
        insert_tile_op(b, UNARY_BIAS_SCALE[name](op.un_out, op.src, op.bias, op.scale,
                                                 scope=scope), op)
    elif op.bias is not None or op.scale is not None:
        fail(f"{name} takes no bias or scale")
    else:
        insert_tile_op(b, UNARY_PLAIN[name](op.un_out, op.src, scope=scope), op)
    insert_tile_op(b, REDUCE[op.reduce.data](op.red_out, op.un_out, scope=scope,
                                             axes=list(op.ints_prop("axes", (-1,)))), op)


def binary_reduce(op: T.BinaryReduceOp, ctx) -> None:
    b, scope = ctx.builder, op.exec_scope
    insert_tile_op(b, BINARY[op.binary.data](op.bin_out, op.lhs, op.rhs, scope=scope), op)
    insert_tile_op(b, REDUCE[op.reduce.data](op.red_out, op.bin_out, scope=scope,
                                             axes=list(op.ints_prop("axes", (-1,)))), op)
