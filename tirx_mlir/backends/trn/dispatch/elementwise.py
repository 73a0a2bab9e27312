"""Trainium variants of the elementwise tile primitives.

* add / sub / mul / maximum / minimum / fdiv (``binary``): ``nki.tensor_tensor`` when both
  sources have the destination's shape; ``nki.tensor_scalar`` when one is a scalar or a
  per-partition ``[P, 1]`` operand (``reverse0`` when it is the left operand). fdiv of two tiles
  is ``nki.reciprocal`` then a multiply (NKI has no tensor-tensor divide instruction).
* exp / sqrt / exp2 / log2 (``unary_with_bias_scale``): ``nki.activation`` computing
  ``f(x * scale + bias)``; exp2 is exp with ``scale * ln 2`` and ``bias * ln 2``, log2 is log
  followed by a multiply by ``1 / ln 2``. A constant bias becomes a shared (P, 1) constant tile
  on NeuronCore-v2 (a scalar on v3+). Full-tile bias or scale: ``unary_decompose`` computes
  ``x * scale + bias`` with tirx.fma first.
* silu (activation silu), reciprocal (``nki.reciprocal``, VectorE), fill / memset / zero
  (``nki.memset``, as large as the hardware allows unless ``max_inst_size`` is set).
* fma: ``nki.tensor_scalar`` with two operators, or ``nki.scalar_tensor_tensor`` when the bias
  is a full tile, or a multiply and an add through a scratch tile when the scale is.

A ``rounding_mode`` config NKI cannot honour is refused at the op (`rounding`).

A binary operand that is one row ``[1, N]`` of a ``[P, N]`` destination is read as a full
tile: it is broadcast across partitions first (`partition_broadcast`).
"""

from __future__ import annotations

import math

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import (ALU, COMPUTE, f32_const, f32_scalar,
                                                    float_tiles, limits, local_tile, memset_value,
                                                    plan_elementwise)
from tirx_mlir.backends.trn.dispatch.partition_broadcast import broadcasts_across_partitions
from tirx_mlir.backends.trn.dispatch.plan import TilePlan
from tirx_mlir.backends.trn.dispatch.rounding import HONOURS_ROUNDING
from tirx_mlir.backends.trn.memory import SBUF
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import constant_value, guard_like
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dispatch import accepts_guards, fail, register_dispatch
from tirx_mlir.dispatch.builders import (btype, elem_type, insert_tile_op, is_buffer, is_full,
                                         shape_of)

LN2 = math.log(2.0)


def tile_shape(plan: TilePlan) -> list[int]:
    """Shape of a full operand's instruction view: ``[P, free...]`` (at least ``[P, 1]``)."""
    free = [plan.chunk[j] for j in plan.free_order() if plan.chunk.get(j, 1) > 1]
    return [plan.partitions] + (free or [1])


def f32_vector(builder: Builder, hoist: Builder, view: SSAValue, cache: dict) -> SSAValue:
    """A per-partition operand as an f32 (P, 1) tile (tensor_copy into a scratch tile when it
    holds another type)."""
    if btype(view).element_type == f32:
        return view
    key = ("f32_vector", btype(view).get_shape())
    if key not in cache:
        cache[key] = local_tile(hoist, btype(view).get_shape(), f32)
    tile = guard_like(builder, cache[key], view)
    builder.insert(nki.TensorCopyOp(tile, view))
    return tile


def operand_reader(plan: TilePlan, ops: dict, scalars: dict[str, SSAValue],
                   vectors: list[str], hoist: Builder):
    """``read(builder, name, ivs)``: an instruction's operand ``name`` at loop indices ``ivs``:
    its f32 scalar, its per-partition vector as an f32 (P, 1) tile, or its instruction view."""
    cache: dict = {}

    def read(bb: Builder, name: str, ivs) -> SSAValue:
        if name in scalars:
            return scalars[name]
        view = plan.instruction_view(bb, ops[name], ivs)
        return f32_vector(bb, hoist, view, cache) if name in vectors else view

    return read


# --- binary ---------------------------------------------------------------------------------------


def _binary(op: T._BinaryOp, ctx) -> None:  # noqa: SLF001
    func = op.FUNC
    dst, lhs, rhs = op.dst, op.lhs, op.rhs
    shape = shape_of(dst)
    full = {n: is_buffer(v) and (is_full(v, shape) or
                                      broadcasts_across_partitions(shape_of(v), shape))
            for n, v in (("lhs", lhs), ("rhs", rhs))}
    b = ctx.builder
    if full["lhs"] and full["rhs"]:
        plan, ops = plan_elementwise(ctx, op, dst, [("lhs", lhs), ("rhs", rhs)])
        recip = local_tile(b, tile_shape(plan), f32) if func == "fdiv" else None

        def body(bb: Builder, ivs, _counters) -> None:
            d, l, r = (plan.instruction_view(bb, ops[n], ivs) for n in ("dst", "lhs", "rhs"))
            if recip is not None:
                inverse = guard_like(bb, recip, r)
                bb.insert(nki.ReciprocalOp(inverse, r))
                bb.insert(nki.TensorTensorOp(d, l, inverse, op="multiply"))
            else:
                bb.insert(nki.TensorTensorOp(d, l, r, op=ALU[func]))

        plan.emit(b, plan.loops, body)
        return
    if not (full["lhs"] or full["rhs"]):
        fail("neither source has the destination's shape: one must be a full tile (the other "
             "a scalar or a per-partition [P, 1] operand)")
    data_name, other_name = ("lhs", "rhs") if full["lhs"] else ("rhs", "lhs")
    data, other = getattr(op, data_name), getattr(op, other_name)
    vectors = [other_name] if is_buffer(other) else []
    named = [(data_name, data)] + ([(other_name, other)] if vectors else [])
    plan, ops = plan_elementwise(ctx, op, dst, named, vectors=vectors)
    scalar = None if vectors else f32_scalar(b, other)
    cache: dict = {}

    def body(bb: Builder, ivs, _counters) -> None:
        d, x = plan.views(bb, ops, ivs, "dst", data_name)
        operand = scalar if scalar is not None else \
            f32_vector(bb, b, plan.instruction_view(bb, ops[other_name], ivs), cache)
        bb.insert(nki.TensorScalarOp(d, x, operand, op0=ALU[func],
                                     reverse0=data_name == "rhs"))

    plan.emit(b, plan.loops, body)


for _op in (T.AddOp, T.SubOp, T.MulOp, T.MaximumOp, T.MinimumOp, T.FdivOp):
    register_dispatch(_op, "trn", variant="binary", when=(*COMPUTE, HONOURS_ROUNDING))(
        accepts_guards(_binary))


# --- unary with bias and scale --------------------------------------------------------------------


class _Operand:
    """How a bias/scale operand reaches the activation: absent, scalar, or per-partition."""

    def __init__(self, kind: str, value: SSAValue | None = None):
        self.kind, self.value = kind, value


def _classify(value: SSAValue | None, shape) -> _Operand:
    if value is None:
        return _Operand("none")
    if not is_buffer(value):
        return _Operand("scalar", value)
    if is_full(value, shape) and math.prod(shape) > 1:
        return _Operand("full", value)
    return _Operand("vector", value)


def _scaled(b: Builder, value: SSAValue, factor: float) -> SSAValue:
    if factor == 1.0:
        return f32_scalar(b, value)
    const = constant_value(value)
    if const is not None:
        return f32_const(b, float(const) * factor)
    return b.insert(arith.MulfOp(f32_scalar(b, value), f32_const(b, factor))).result


class BiasScale:
    """The bias and scale operands of an activation, prepared once per op: scalars become f32
    values (a shared constant (P, 1) tile for a scalar bias on NeuronCore-v2), per-partition
    buffers become (P, 1) views per instruction; ``factor`` multiplies both (exp2)."""

    def __init__(self, ctx, op, shape, factor: float = 1.0):
        self.bias = _classify(getattr(op, "bias", None), shape)
        self.scale = _classify(getattr(op, "scale", None), shape)
        if "full" in (self.bias.kind, self.scale.kind):
            fail("bias/scale is a full tile; activation takes scalar or per-partition [P, 1] "
                 "operands (the decompose variant handles this)")
        self.factor = factor
        self.ctx = ctx
        self.cache: dict = {}

    def vectors(self) -> list[tuple[str, SSAValue]]:
        return [(n, o.value) for n, o in (("bias", self.bias), ("scale", self.scale))
                if o.kind == "vector"]  # type: ignore[misc]

    def prepare(self, b: Builder, nparts: int) -> None:
        factor, lim = self.factor, limits(self.ctx)
        self.hoist = b
        self.scale_value = None
        if self.scale.kind == "scalar":
            self.scale_value = _scaled(b, self.scale.value, factor)
        elif self.scale.kind == "none" and factor != 1.0:
            self.scale_value = f32_const(b, factor)
        self.bias_value = None
        if self.bias.kind == "scalar":
            self.bias_value = _scaled(b, self.bias.value, factor) if factor != 1.0 \
                else f32_scalar(b, self.bias.value)
            if not lim.act_bias_scalar_ok:
                self.bias_value = _const_bias_tile(self.ctx, b, self.bias_value, nparts)

    def values(self, bb: Builder, plan: TilePlan, ops, ivs, like: SSAValue | None = None
               ) -> tuple[SSAValue | None, ...]:
        """The instruction's bias and scale; a constant bias tile is guarded as ``like`` (the
        instruction's data view) is."""
        bias_v, scale_v = self.bias_value, self.scale_value
        if like is not None and bias_v is not None and is_buffer(bias_v):
            bias_v = guard_like(bb, bias_v, like)
        if self.bias.kind == "vector":
            bias_v = plan.instruction_view(bb, ops["bias"], ivs)
            if self.factor != 1.0:
                bias_v = _scale_vector(bb, self.hoist, f32_vector(bb, self.hoist, bias_v,
                                                                  self.cache),
                                       self.factor, self.cache, "bias")
        if self.scale.kind == "vector":
            scale_v = f32_vector(bb, self.hoist, plan.instruction_view(bb, ops["scale"], ivs),
                                 self.cache)
            if self.factor != 1.0:
                scale_v = _scale_vector(bb, self.hoist, scale_v, self.factor, self.cache,
                                        "scale")
        return bias_v, scale_v


def activation(op, ctx, func: str, *, factor: float = 1.0, post_scale: float | None = None
               ) -> None:
    """``dst = func((src * scale + bias) * factor)`` (then ``* post_scale``) with
    nki.activation; scalar/per-partition bias and scale only (decline otherwise)."""
    dst, src = op.dst, op.src
    operands = BiasScale(ctx, op, shape_of(dst), factor)
    vectors = operands.vectors()
    plan, ops = plan_elementwise(ctx, op, dst, [("src", src)] + vectors,
                                 vectors=[n for n, _ in vectors])
    b = ctx.builder
    operands.prepare(b, plan.partitions)
    post = f32_const(b, post_scale) if post_scale is not None else None

    def body(bb: Builder, ivs, _counters) -> None:
        d, x = plan.views(bb, ops, ivs, "dst", "src")
        bias_v, scale_v = operands.values(bb, plan, ops, ivs, like=x)
        bb.insert(nki.ActivationOp(d, x, bias_v, scale_v, func=func))
        if post is not None:
            bb.insert(nki.TensorScalarOp(d, d, post, op0="multiply"))

    plan.emit(b, plan.loops, body)


def _scale_vector(bb: Builder, hoist: Builder, view: SSAValue, factor: float, cache: dict,
                  key: str) -> SSAValue:
    tmp_key = ("scaled", key)
    if tmp_key not in cache:
        cache[tmp_key] = local_tile(hoist, btype(view).get_shape(), f32)
        cache[("factor", key)] = f32_const(hoist, factor)
    tile = guard_like(bb, cache[tmp_key], view)
    bb.insert(nki.TensorScalarOp(tile, view, cache[("factor", key)], op0="multiply"))
    return tile


def _const_bias_tile(ctx, b: Builder, value: SSAValue, nparts: int) -> SSAValue:
    """A (P, 1) f32 tile holding ``value`` (NeuronCore-v2 takes no scalar bias): shared per
    constant (initialised once at kernel entry), else filled where the op is."""
    const = constant_value(value)
    tile_type = BufferType([128, 1], f32, SBUF)
    if const is None:
        tile = local_tile(b, [nparts, 1], f32)
        b.insert(nki.MemsetOp(tile, value))
        return tile

    def init(builder: Builder, buffer: SSAValue) -> None:
        builder.insert(nki.MemsetOp(buffer, f32_const(builder, float(const))))

    tile = ctx.alloc_private(("const_bias", float(const)), tile_type, init)
    if nparts == 128:
        return tile
    return b.insert(SliceOp(tile, [0, 0], [nparts, 1])).result


def _exp(op, ctx):
    activation(op, ctx, "exp")


def _sqrt(op, ctx):
    activation(op, ctx, "sqrt")


def _exp2(op, ctx):
    activation(op, ctx, "exp", factor=LN2)


def _log2(op, ctx):
    activation(op, ctx, "log", post_scale=1.0 / LN2)


for _op, _impl in ((T.ExpOp, _exp), (T.SqrtOp, _sqrt), (T.Exp2Op, _exp2), (T.Log2Op, _log2)):
    register_dispatch(_op, "trn", variant="unary_with_bias_scale",
                      when=(*COMPUTE, float_tiles("dst", "src"), HONOURS_ROUNDING))(
        accepts_guards(_impl))


def _unary_decompose(op, ctx) -> None:
    """f(src * scale + bias) with a full-tile bias or scale: tirx.fma into a scratch tile, then
    the unary op on it (both dispatched in turn)."""
    shape = shape_of(op.dst)
    kinds = {_classify(op.bias, shape).kind, _classify(op.scale, shape).kind}
    if "full" not in kinds:
        fail("bias and scale are scalars or per-partition operands (unary_with_bias_scale "
             "handles them)")
    b = ctx.builder
    tmp = guard_like(b, local_tile(b, shape, f32), op.dst)  # guarded as dst (a guarded tile)
    one, zero = f32_const(b, 1.0), f32_const(b, 0.0)
    insert_tile_op(b, T.FmaOp(tmp, op.src, op.scale or one, op.bias or zero), op)
    insert_tile_op(b, type(op)(op.dst, tmp), op)


for _op in (T.ExpOp, T.SqrtOp, T.Exp2Op, T.Log2Op):
    register_dispatch(_op, "trn", variant="unary_decompose", priority=-10,
                      when=(*COMPUTE, float_tiles("dst", "src"), HONOURS_ROUNDING))(
        accepts_guards(_unary_decompose))


def _silu(op, ctx):
    activation(op, ctx, "silu")


register_dispatch(T.SiluOp, "trn", variant="unary",
                  when=(*COMPUTE, float_tiles("dst", "src")))(accepts_guards(_silu))


def _reciprocal(op: T.ReciprocalOp, ctx) -> None:
    plan, ops = plan_elementwise(ctx, op, op.dst, [("src", op.src)])

    def body(bb: Builder, ivs, _counters) -> None:
        bb.insert(nki.ReciprocalOp(plan.instruction_view(bb, ops["dst"], ivs),
                                   plan.instruction_view(bb, ops["src"], ivs)))

    plan.emit(ctx.builder, plan.loops, body)


register_dispatch(T.ReciprocalOp, "trn", variant="unary", when=(*COMPUTE, HONOURS_ROUNDING))(
    accepts_guards(_reciprocal))


# --- fills ----------------------------------------------------------------------------------------


def _memset(op, ctx) -> None:
    plan, ops = plan_elementwise(ctx, op, op.dst, [], default_max=None)
    value = op.value if hasattr(op, "value") else None
    fill = memset_value(ctx.builder, value if value is not None else 0.0, op.dst)

    def body(bb: Builder, ivs, _counters) -> None:
        bb.insert(nki.MemsetOp(plan.instruction_view(bb, ops["dst"], ivs), fill))

    plan.emit(ctx.builder, plan.loops, body)


for _op in (T.MemsetOp, T.FillOp, T.ZeroOp):
    register_dispatch(_op, "trn", variant="unary", when=COMPUTE)(accepts_guards(_memset))


# --- fma ------------------------------------------------------------------------------------------


def _fma(op: T.FmaOp, ctx) -> None:
    shape = shape_of(op.dst)
    x, s, c = _classify(op.input, shape), _classify(op.scale, shape), _classify(op.bias, shape)
    if x.kind != "full" and s.kind == "full":
        x, s = s, x
    if x.kind != "full":
        fail("neither input nor scale is a full tile")
    b = ctx.builder
    vectors = [n for n, o in (("scale", s), ("bias", c)) if o.kind == "vector"]
    named = [("input", x.value)] + [(n, o.value) for n, o in (("scale", s), ("bias", c))
                                    if o.kind in ("vector", "full")]
    plan, ops = plan_elementwise(ctx, op, op.dst, named, vectors=vectors)
    scalars = {n: f32_scalar(b, o.value) for n, o in (("scale", s), ("bias", c))
               if o.kind == "scalar"}
    tmp = local_tile(b, tile_shape(plan), f32) if s.kind == "full" else None
    operand = operand_reader(plan, ops, scalars, vectors, b)

    def body(bb: Builder, ivs, _counters) -> None:
        d, xv = plan.views(bb, ops, ivs, "dst", "input")
        sv, cv = operand(bb, "scale", ivs), operand(bb, "bias", ivs)
        if tmp is not None:
            product = guard_like(bb, tmp, xv)
            bb.insert(nki.TensorTensorOp(product, xv, sv, op="multiply"))
            if c.kind == "full":
                bb.insert(nki.TensorTensorOp(d, product, cv, op="add"))
            else:
                bb.insert(nki.TensorScalarOp(d, product, cv, op0="add"))
        elif c.kind == "full":
            bb.insert(nki.ScalarTensorTensorOp(d, xv, sv, cv, op0="multiply", op1="add"))
        else:
            bb.insert(nki.TensorScalarOp(d, xv, sv, cv, op0="multiply", op1="add"))

    plan.emit(b, plan.loops, body)


register_dispatch(T.FmaOp, "trn", variant="tensor_scalar", when=(*COMPUTE, HONOURS_ROUNDING))(
    accepts_guards(_fma))

_ = elem_type
