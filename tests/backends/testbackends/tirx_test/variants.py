"""Dispatch variants of the test backend (imported on the first dispatch for ``tirx_test``).

tirx.copy, in try order:
  vec_forced (20, forced only) > fast (10, needs target fast=true and no config `slow`) >
  crashy (7, its predicate raises ZeroDivisionError when config has `crash`, else rejects) >
  alpha (5, declines when config has `decline_alpha`) = beta (5, raises ValueError when config
  has `beta_raises`); alpha wins the tie by name.
tirx.exp: with_lut (10) uses a private buffer shared by key "lut" with init code, and init code
  of its own.
tirx.add: nested (10) lowers to a tirx.copy (dispatched in turn) and a marker.
tirx.reciprocal: reemit (10, when config has `reemit`) emits another tirx.reciprocal forever;
  plain (0) otherwise.
tirx.sqrt: no variant (the "no registered variants" error).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.test import TestOp

from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.tile_ops import CopyOp, ReciprocalOp
from tirx_mlir.dispatch import fail, forced_only, predicate, register_dispatch

KIND = "tirx_test"


def marker(ctx, variant: str, *operands) -> None:
    ctx.builder.insert(TestOp(operands, attributes={"variant": StringAttr(variant)}))


def config_has(op, key: str) -> bool:
    return key in op.config_dict()


# --- copy -------------------------------------------------------------------------------------


@register_dispatch("copy", KIND, variant="vec_forced", priority=20,
                   when=[forced_only("vec_forced")])
def copy_vec_forced(op, ctx):
    marker(ctx, "vec_forced", op.dst, op.src)


def _target_fast(op, ctx):
    return ctx.target.fast, "target has fast=false"


def _not_slow(op, ctx):
    if config_has(op, "slow"):
        fail("config asks for the slow path")
    return True


@register_dispatch("copy", KIND, variant="fast", priority=10,
                   when=[predicate("target_fast", _target_fast),
                         predicate("not_slow", _not_slow)])
def copy_fast(op, ctx):
    marker(ctx, "fast", op.dst, op.src)


def _crash_if_asked(op, ctx):
    if config_has(op, "crash"):
        return 1 // 0
    return False, "only used by crash tests"


@register_dispatch("copy", KIND, variant="crashy", priority=7,
                   when=[predicate("crash_if_asked", _crash_if_asked)])
def copy_crashy(op, ctx):
    marker(ctx, "crashy", op.dst, op.src)


@register_dispatch("copy", KIND, variant="beta", priority=5)
def copy_beta(op, ctx):
    marker(ctx, "beta-started")  # built into the scratch block; discarded if we raise
    if config_has(op, "beta_raises"):
        raise ValueError("beta cannot copy this")
    marker(ctx, "beta", op.dst, op.src)


@register_dispatch("copy", KIND, variant="alpha", priority=5)
def copy_alpha(op, ctx):
    marker(ctx, "alpha-started")
    if config_has(op, "decline_alpha"):
        fail("config says decline_alpha")
    marker(ctx, "alpha", op.dst, op.src)


# --- exp: private buffers and init code ----------------------------------------------------------


def _init_lut(builder, buffer) -> None:
    builder.insert(TestOp([buffer], attributes={"init": StringAttr("lut")}))


@register_dispatch("exp", KIND, variant="with_lut", priority=10)
def exp_with_lut(op, ctx):
    lut_type = BufferType([ctx.target.lanes], op.dst.type.element_type, "tirx_test.scratch")
    lut = ctx.alloc_private("lut", lut_type, init=_init_lut)
    ctx.add_init(lambda b: b.insert(TestOp(attributes={"init": StringAttr("exp-once")})))
    marker(ctx, "with_lut", op.dst, op.src, lut)


# --- add: nested dispatch ------------------------------------------------------------------------


@register_dispatch("add", KIND, variant="nested", priority=10)
def add_nested(op, ctx):
    if not isinstance(op.lhs.type, BufferType):
        fail("lhs is a scalar")
    ctx.builder.insert(CopyOp(op.dst, op.lhs, scope=op.exec_scope))
    marker(ctx, "add-rhs", op.dst, op.rhs)


# --- reciprocal: runaway nesting -----------------------------------------------------------------


@register_dispatch("reciprocal", KIND, variant="reemit", priority=10,
                   when=[predicate("asked", lambda op, ctx: config_has(op, "reemit"))])
def reciprocal_reemit(op, ctx):
    ctx.builder.insert(ReciprocalOp(op.dst, op.src, config=op.config_dict()))


@register_dispatch("reciprocal", KIND, variant="plain", priority=0)
def reciprocal_plain(op, ctx):
    marker(ctx, "plain", op.dst, op.src)
