"""What the Trainium dispatch variants share: predicates, scalar operands as NKI takes them,
instruction limits from the config and the target, elementwise plans, and local scratch tiles.

The target-neutral helpers (typed buffers and views, loops, divisors, config readers, inserting
a tile op) are `tirx_mlir.dispatch.builders`."""

from __future__ import annotations

from typing import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerAttr, IntegerType, f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.trn.dispatch.partition_broadcast import broadcast_row
from tirx_mlir.backends.trn.dispatch.plan import (PlanOperand, TilePlan, hardware_free_limit,
                                                  plan_tiles)
from tirx_mlir.backends.trn.dispatch.scratch import (f32_const, local_tile,  # noqa: F401
                                                     scratch_tile)
from tirx_mlir.backends.trn.memory import HBM, ON_CHIP, PSUM, SBUF
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch import Predicate, exec_scope_in, fail, predicate
from tirx_mlir.dispatch.builders import (align, btype, config_int, elem_type, is_buffer,
                                         scope_of, shape_of)

DEFAULT_MAX_INST_SIZE = 512
"""TIRx's default free size of one elementwise/copy instruction (config key max_inst_size)."""

THREAD_SCOPE = exec_scope_in("thread")
"""Every Trainium variant runs at thread scope (one NeuronCore program), as in TIRx."""

ALU = {"add": "add", "sub": "subtract", "mul": "multiply", "fdiv": "divide",
       "maximum": "maximum", "minimum": "minimum"}
"""tirx binary function -> NKI ALU operator."""
REDUCE_ALU = {"sum": "add", "max": "maximum", "min": "minimum"}
"""tirx reduction -> NKI ALU reduce operator."""


def on_chip(value: SSAValue) -> bool:
    return is_buffer(value) and scope_of(value) in ON_CHIP


def limits(ctx) -> TrnLimits:
    """The limits of the dispatch target, made once per kernel and target object (the kernel's
    ops share them; `TrnLimits.from_target` reads every attribute of the target)."""
    held = ctx.shared_state.get("trn.limits")
    if held is None or held[0] is not ctx.target:
        held = ctx.shared_state["trn.limits"] = (ctx.target, TrnLimits.from_target(ctx.target))
    return held[1]


# --- predicates -----------------------------------------------------------------------------------


def operand_scopes(op: TileOp, ctx) -> tuple[tuple[str, SSAValue, str | None], ...]:
    """(name, value, memory scope; None for a scalar) of each present single operand, read
    once per dispatch of the op (`DispatchContext.once`): the predicates all ask."""
    return ctx.once("trn.operand_scopes", lambda: tuple(
        (name, value, scope_of(value) if is_buffer(value) else None)
        for name, value in op.named_operands().items()))


def _operands_on_trn(op: TileOp, ctx) -> tuple[bool, str]:
    for name, _, scope in operand_scopes(op, ctx):
        if scope is not None and scope not in (HBM, *ON_CHIP):
            return False, f"operand '{name}' is in {scope}; Trainium tiles live in " \
                          f"{HBM} (HBM), {SBUF} or {PSUM}"
    return True, ""


def _dsts_on_chip(op: TileOp, ctx) -> tuple[bool, str]:
    operands = operand_scopes(op, ctx)
    for name, value, scope in operands:
        if name in op.DSTS and scope not in ON_CHIP:
            return False, f"the destination is in {scope or scope_of(value)}; compute " \
                          f"instructions write {SBUF} or {PSUM} (copy to HBM with tirx.copy)"
    for name, value, scope in operands:
        if name not in op.DSTS and scope is not None and scope not in ON_CHIP:
            return False, f"a source is in {scope}; compute instructions read " \
                          f"{SBUF} or {PSUM} (load it with tirx.copy first)"
    return True, ""


OPERANDS_ON_TRN = predicate("trn_memory", _operands_on_trn)
ON_CHIP_COMPUTE = predicate("on_chip", _dsts_on_chip)
COMPUTE = (THREAD_SCOPE, OPERANDS_ON_TRN, ON_CHIP_COMPUTE)


def float_tiles(*names: str) -> Predicate:
    def check(op: TileOp, ctx) -> tuple[bool, str]:
        for name in names:
            value = getattr(op, name)
            if value is not None and not dtypes.is_float(elem_type(value)):
                return False, f"operand '{name}' holds {dtypes.type_name(elem_type(value))}; " \
                              f"this lowering computes in floating point"
        return True, ""

    return predicate("float_operands", check)


# --- config ---------------------------------------------------------------------------------------


def max_free(op: TileOp, values: Sequence[SSAValue], *, default: int | None = DEFAULT_MAX_INST_SIZE
             ) -> int:
    """Free elements per instruction: config ``max_inst_size`` (else ``default``, else the
    hardware limit), never above the hardware limit."""
    hw = hardware_free_limit([v for v in values if on_chip(v)])
    asked = config_int(op, "max_inst_size")
    if asked is None:
        asked = default if default is not None else hw
    return min(asked, hw)


# --- scalars --------------------------------------------------------------------------------------


def f32_scalar(builder: Builder, value: SSAValue) -> SSAValue:
    """A scalar operand as the f32 value NKI instructions take."""
    t = value.type
    if t == f32:
        return value
    const = constant_value(value)
    if const is not None:
        return f32_const(builder, float(const))
    if isinstance(t, AnyFloat) and dtypes.is_supported(t):
        width = dtypes.bit_width(t)
        cast = arith.ExtFOp(value, f32) if width < 32 else arith.TruncFOp(value, f32)
        return builder.insert(cast).result
    if isinstance(t, (IntegerType, IndexType)):
        if isinstance(t, IndexType):
            value = builder.insert(arith.IndexCastOp(value, IntegerType(64))).result
        return builder.insert(arith.SIToFPOp(value, f32)).result
    fail(f"scalar operand of type {t} cannot become an f32 instruction operand")


def memset_value(builder: Builder, value: SSAValue | float, tile: SSAValue) -> SSAValue:
    """A memset value of the tile's kind (f32 for float tiles, i32 for integer tiles)."""
    elem = btype(tile).element_type
    if isinstance(value, SSAValue):
        if value.type == (f32 if dtypes.is_float(elem) else IntegerType(32)):
            return value
        const = constant_value(value)
        if const is None:
            return f32_scalar(builder, value) if dtypes.is_float(elem) else value
        value = const
    if dtypes.is_float(elem):
        return f32_const(builder, float(value))
    return builder.insert(arith.ConstantOp(IntegerAttr(int(value), IntegerType(32)))).result


# --- operands and plans ---------------------------------------------------------------------------


def plan_elementwise(ctx, op: TileOp, dst: SSAValue, named: Sequence[tuple[str, SSAValue]], *,
                     vectors: Sequence[str] = (), default_max: int | None = DEFAULT_MAX_INST_SIZE
                     ) -> tuple[TilePlan, dict[str, PlanOperand]]:
    """Plan an elementwise instruction over dst's shape. ``named`` lists the buffer sources;
    ``vectors`` names those used as per-partition (P, 1) operands (every free dim they have is
    looped over)."""
    iter_shape = shape_of(dst)
    operands = {"dst": PlanOperand(dst, tuple(iter_shape), "dst")}
    for name, value in named:
        try:
            aligned = align(shape_of(value), iter_shape, f"operand '{name}'")
        except rules.RuleError as err:
            fail(str(err))
        operands[name] = PlanOperand(value, aligned, name)
    values = [o.value for o in operands.values()]
    plan = plan_tiles(ctx.builder, iter_shape, list(operands.values()), anchor=0,
                      max_free=max_free(op, values, default=default_max),
                      vector_operands=[list(operands).index(v) for v in vectors],
                      broadcast=lambda b, row, rows: broadcast_row(ctx, b, row, rows, op))
    return plan, operands
