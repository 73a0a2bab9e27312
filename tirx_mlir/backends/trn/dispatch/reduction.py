"""Trainium variants of the reductions and the fused reductions.

* sum / max / min (``reduction``, as TIRx) and reduce_negate (``default``):
  ``nki.tensor_reduce`` over the reduced free dims (moved last in the instruction view), with
  ``negate`` for reduce_negate. One instruction covers the whole reduction unless it exceeds
  ``max_inst_size`` (config; default: the hardware free-size limit); then a **two-stage**
  reduction writes one partial result per block into a scratch ``[P, ..., blocks]`` tile and
  reduces that. ``accum`` folds the old destination in with one more instruction.
* unary_reduce (``activation_reduce``): ``nki.activation_reduce`` for exp / exp2 / sqrt / silu
  with a sum (the engine's only fused reduction), two-stage when needed; other combinations
  (``decompose``) become the unary op then the reduction.
* binary_reduce (``tensor_scalar_reduce``): ``nki.tensor_scalar_reduce`` when one source is a
  scalar or per-partition operand; two full tiles (``decompose``) become the binary op then the
  reduction.
"""

from __future__ import annotations

import math
from typing import Callable

from xdsl.builder import Builder
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import (ALU, COMPUTE, REDUCE_ALU, f32_const, f32_scalar,
                                                    float_tiles, local_tile, scratch_tile)
from tirx_mlir.backends.trn.dispatch.elementwise import LN2, BiasScale, f32_vector
from tirx_mlir.backends.trn.dispatch.plan import (PlanOperand, TilePlan, hardware_free_limit,
                                                  plan_tiles)
from tirx_mlir.backends.trn.memory import SBUF
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import guard_like
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dispatch import accepts_guards, decompose, fail, register_dispatch
from tirx_mlir.dispatch.builders import (config_int, is_buffer, is_full, reshape,
                                         shape_of)

DUAL = {"add": "add", "maximum": "minimum", "minimum": "maximum"}
"""-(-a op b) == a dual(op) (-b): folds a new result into a negated running reduction."""


class Reduction:
    """The plan of one reduction: iteration space = the (elementwise) source's shape, reduced
    dims last in each instruction, partial results when the reduction needs several blocks."""

    def __init__(self, ctx, op, src: SSAValue, red_out: SSAValue, axes, *,
                 elementwise: list[tuple[str, SSAValue]] = (),
                 vectors: list[tuple[str, SSAValue]] = (),
                 whole_free: bool = False):
        iter_shape = shape_of(src)
        try:
            self.axes = rules.normalize_axes(axes, len(iter_shape))
        except rules.RuleError as err:
            fail(str(err))
        kept = rules.reduced_shape(iter_shape, self.axes, keepdims=True)
        operands = [PlanOperand(src, tuple(iter_shape), "src")]
        operands += [PlanOperand(v, tuple(iter_shape), n) for n, v in elementwise]
        operands.append(PlanOperand(red_out, tuple(kept), "red_out"))
        for name, value in vectors:
            aligned = (1,) * (len(iter_shape) - len(shape_of(value))) + shape_of(value)
            operands.append(PlanOperand(value, aligned, name))
        self.ops = {o.name: o for o in operands}
        self.full_names = {"src", *(n for n, _ in elementwise)}
        values = [o.value for o in operands]
        hw = hardware_free_limit(values)
        asked = config_int(op, "max_inst_size")
        vector_idx = [len(operands) - len(vectors) + i for i in range(len(vectors))]
        if whole_free:  # the instruction reduces all its free elements: no kept free dim in it
            vector_idx.append(len(operands) - len(vectors) - 1)
        self.plan: TilePlan = plan_tiles(ctx.builder, iter_shape, operands, anchor=0,
                                         reduce_dims=self.axes, max_free=hw,
                                         max_reduce=min(asked, hw) if asked else None,
                                         vector_operands=vector_idx)
        self.ctx, self.op = ctx, op

    def view(self, bb: Builder, name: str, ivs) -> SSAValue:
        return self.plan.instruction_view(bb, self.ops[name], ivs,
                                          keep_reduce_dim=name in self.full_names)

    def reduce_axes(self, view: SSAValue) -> list[int]:
        """The trailing axes of a source instruction view that hold reduced dims."""
        rank = len(shape_of(view))
        n = max(1, len(self.plan.inst_free(reduce=True)))
        return list(range(rank - n, rank))

    def emit(self, stage1: Callable[[Builder, dict, SSAValue], None], reduce_op: str, *,
             negate: bool = False, accum: bool = False) -> None:
        """``stage1(builder, ivs, out)`` emits the instruction(s) of one block writing its
        per-partition result(s) to ``out``; then the partials (if any) are reduced into
        red_out, negated and folded with its old value as asked."""
        plan, b = self.plan, self.ctx.builder
        red_loops = plan.reduce_loops()
        kept = [plan.chunk[j] for j in plan.inst_free(reduce=False)]
        partial = None
        if red_loops:
            partial = scratch_tile(b, self.op, [plan.partitions] + kept +
                                   plan.loop_counts(red_loops), f32, SBUF,
                                   "the two-stage reduction's partial-result buffer")
        result = local_tile(b, [plan.partitions] + (kept or [1]), f32) if accum else None
        minus_one = f32_const(b, -1.0) if accum and negate else None

        def block(bb: Builder, ivs, counters) -> None:
            final = self.view(bb, "red_out", ivs)
            target = final if result is None else guard_like(bb, result, final)
            parts = None if partial is None else guard_like(bb, partial, final)
            if partial is None:
                stage1(bb, ivs, target if not negate or accum else _NegateInto(target))
            else:
                def inner(b2: Builder, ivs2, counters2) -> None:
                    nk = len(kept)
                    offs = [0] * (1 + nk) + [counters2[j] for j in red_loops]
                    sizes = [plan.partitions] + kept + [1] * len(red_loops)
                    slot = b2.insert(SliceOp(parts, offs, sizes)).result
                    stage1(b2, ivs2, reshape(b2, slot, [plan.partitions] + (kept or [1])))

                plan.emit(bb, red_loops, inner, ivs, counters)
                rank = 1 + len(kept) + len(red_loops)
                axes = list(range(1 + len(kept), rank))
                bb.insert(nki.TensorReduceOp(target, parts, op=reduce_op, axes=axes,
                                             negate=negate and not accum,
                                             keepdims=len(shape_of(target)) == rank))
            if result is not None:
                if negate:
                    bb.insert(nki.ScalarTensorTensorOp(final, target, minus_one, final,
                                                       op0="multiply", op1=DUAL[reduce_op]))
                else:
                    bb.insert(nki.TensorTensorOp(final, final, target, op=reduce_op))

        plan.emit(b, plan.parallel_loops(), block)


class _NegateInto:
    """Marks a single-stage destination whose reduction must be negated."""

    def __init__(self, value: SSAValue):
        self.value = value


def _target(out) -> tuple[SSAValue, bool]:
    return (out.value, True) if isinstance(out, _NegateInto) else (out, False)


# --- sum / max / min / reduce_negate --------------------------------------------------------------


def _tensor_reduce(op: T._ReduceOp, ctx) -> None:  # noqa: SLF001
    name = op.reduce.data if isinstance(op, T.ReduceNegateOp) else op.name.split(".")[1]
    alu = REDUCE_ALU[name]
    red = Reduction(ctx, op, op.src, op.dst, op.ints_prop("axes", (-1,)))

    def stage1(bb: Builder, ivs, out) -> None:
        target, negate = _target(out)
        src = red.view(bb, "src", ivs)
        bb.insert(nki.TensorReduceOp(target, src, op=alu, axes=red.reduce_axes(src),
                                     negate=negate,
                                     keepdims=len(shape_of(target)) == len(shape_of(src))))

    red.emit(stage1, alu, negate=isinstance(op, T.ReduceNegateOp), accum=op.flag("accum"))


for _op in (T.SumOp, T.MaxOp, T.MinOp):
    register_dispatch(_op, "trn", variant="reduction", when=COMPUTE)(
        accepts_guards(_tensor_reduce))
register_dispatch(T.ReduceNegateOp, "trn", variant="default", priority=10,
                  when=COMPUTE)(accepts_guards(_tensor_reduce))


# --- unary_reduce ---------------------------------------------------------------------------------

_ACTIVATION = {"exp": ("exp", 1.0), "exp2": ("exp", LN2), "sqrt": ("sqrt", 1.0),
               "silu": ("silu", 1.0)}


def _activation_reduce(op: T.UnaryReduceOp, ctx) -> None:
    unary, reduce = op.unary.data, op.reduce.data
    if unary not in _ACTIVATION or reduce != "sum":
        fail(f"activation_reduce fuses exp/exp2/sqrt/silu with a sum, not {unary} with "
             f"{reduce}")
    func, factor = _ACTIVATION[unary]
    if unary == "silu" and (op.bias is not None or op.scale is not None):
        fail("silu takes no bias or scale")
    operands = BiasScale(ctx, op, shape_of(op.un_out), factor)
    red = Reduction(ctx, op, op.un_out, op.red_out, op.ints_prop("axes", (-1,)),
                    elementwise=[("in", op.src)], vectors=operands.vectors(), whole_free=True)
    b = ctx.builder
    operands.prepare(b, red.plan.partitions)

    def stage1(bb: Builder, ivs, out) -> None:
        target, _ = _target(out)
        x, y = red.view(bb, "in", ivs), red.view(bb, "src", ivs)
        bias_v, scale_v = operands.values(bb, red.plan, red.ops, ivs, like=x)
        bb.insert(nki.ActivationReduceOp(y, target, x, bias_v, scale_v, func=func))

    red.emit(stage1, "add")


register_dispatch(T.UnaryReduceOp, "trn", variant="activation_reduce", priority=10,
                  when=(*COMPUTE, float_tiles("un_out", "src")))(
    accepts_guards(_activation_reduce))


def _unary_reduce_decompose(op: T.UnaryReduceOp, ctx) -> None:
    """The unary op into un_out, then the reduction of un_out (each dispatched in turn)."""
    decompose.unary_reduce(op, ctx)


register_dispatch(T.UnaryReduceOp, "trn", variant="decompose", when=COMPUTE)(
    accepts_guards(_unary_reduce_decompose))


# --- binary_reduce --------------------------------------------------------------------------------


def _tensor_scalar_reduce(op: T.BinaryReduceOp, ctx) -> None:
    shape = shape_of(op.bin_out)
    func, reduce = op.binary.data, op.reduce.data
    full = {n: is_buffer(v) and is_full(v, shape) for n, v in (("lhs", op.lhs), ("rhs", op.rhs))}
    if full["lhs"] == full["rhs"]:
        fail("tensor_scalar_reduce needs one full tile and one scalar or per-partition "
             "operand (TIRx: TensorTensor reduce is unsupported; decompose handles it)")
    data_name, other_name = ("lhs", "rhs") if full["lhs"] else ("rhs", "lhs")
    other = getattr(op, other_name)
    reverse = data_name == "rhs"
    if reverse and func in rules.COMMUTATIVE_FUNCS:
        reverse = False
    if reverse:
        fail(f"the scalar is the left operand of a non-commutative {func}; NKI documents "
             f"tensor_scalar_reduce reverse0 as unsupported")
    vectors = [(other_name, other)] if is_buffer(other) else []
    red = Reduction(ctx, op, op.bin_out, op.red_out, op.ints_prop("axes", (-1,)),
                    elementwise=[("data", getattr(op, data_name))], vectors=vectors,
                    whole_free=True)
    b = ctx.builder
    scalar = None if vectors else f32_scalar(b, other)
    cache: dict = {}
    alu = REDUCE_ALU[reduce]

    def stage1(bb: Builder, ivs, out) -> None:
        target, _ = _target(out)
        x, y = red.view(bb, "data", ivs), red.view(bb, "src", ivs)
        operand = scalar if scalar is not None else f32_vector(
            bb, b, red.plan.instruction_view(bb, red.ops[other_name], ivs), cache)
        bb.insert(nki.TensorScalarReduceOp(y, target, x, operand, op0=ALU[func], reduce=alu))

    red.emit(stage1, alu)


register_dispatch(T.BinaryReduceOp, "trn", variant="tensor_scalar_reduce", priority=10,
                  when=COMPUTE)(accepts_guards(_tensor_scalar_reduce))


def _binary_reduce_decompose(op: T.BinaryReduceOp, ctx) -> None:
    decompose.binary_reduce(op, ctx)


register_dispatch(T.BinaryReduceOp, "trn", variant="decompose", when=COMPUTE)(
    accepts_guards(_binary_reduce_decompose))

_ = math
