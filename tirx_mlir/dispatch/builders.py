"""What every backend's dispatch variants build with: typed buffers and views, loops, tile ops.

A variant receives IR values and a builder (`DispatchContext.builder`); these helpers are the
target-neutral part of building its replacement, so a backend's variants state only what is
particular to its hardware:

* reading operands: `btype`, `shape_of`, `is_buffer`, `elem_type`, `scope_of`;
* building: `alloc` (a fresh typed buffer), `reshape` (a view, or the value itself when the
  shape already matches), `emit_loop` (one ``scf.for``; nest calls for a loop nest),
  `insert_tile_op` (a tile op a variant decomposes into, at the user's source location);
* choosing sizes: `largest_divisor_at_most`, `align` / `is_full` (an operand against the
  iteration space, NumPy broadcasting);
* reading a tile op's ``config``: `config_int`, `check_config` (the keys a variant takes: any
  other declines it, naming the accepted ones), `config_choice` (a value from a fixed set).

Index constants are built and read by `tirx_mlir.dialects.tirx.access` (`const_index`,
`constant_value`), which the front end shares.
"""

from __future__ import annotations

import math
from typing import Sequence

from xdsl.builder import Builder
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx.access import const_index
from tirx_mlir.dialects.tirx.attributes import BufferType, is_buffer_type
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, ReshapeOp
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dialects.tirx.op_build import new_op
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch.registry import fail
from tirx_mlir.ir_insert import nested_builder

# --- reading operands -----------------------------------------------------------------------------


def btype(value: SSAValue) -> BufferType:
    """The buffer type of a value known to be a buffer."""
    t = value.type
    assert type(t) is BufferType or is_buffer_type(t)  # the exact class first: the common case
    return t  # type: ignore[return-value]


def shape_of(value: SSAValue) -> tuple[int, ...]:
    t = value.type  # `btype`'s check inline: dispatch asks ~20 times per tile op
    assert type(t) is BufferType or is_buffer_type(t)
    return t.get_shape()  # type: ignore[union-attr]


def is_buffer(value: SSAValue | None) -> bool:
    return value is not None and (type(value.type) is BufferType or is_buffer_type(value.type))


def elem_type(value: SSAValue) -> Attribute:
    """The element type of a buffer, or the type of a scalar."""
    t = value.type
    return t.element_type if is_buffer_type(t) else t  # type: ignore[attr-defined]


def scope_of(value: SSAValue) -> str:
    """The memory scope of the buffer a value (a buffer or a view of one) lives in: its type's,
    since every view keeps its source's scope (the view ops' verifiers), so the view chain is
    not resolved for it."""
    t = value.type
    assert type(t) is BufferType or is_buffer_type(t)
    return t.scope.data  # type: ignore[union-attr]  (`BufferType.scope_name`)


# --- building -------------------------------------------------------------------------------------


def alloc(builder: Builder, shape: Sequence[int], element_type: Attribute, scope: str,
          layout: TileLayout | None = None) -> SSAValue:
    """A fresh ``tirx.alloc`` of that type at the builder."""
    return builder.insert(AllocOp(BufferType(list(shape), element_type, scope, layout))).result


def reshape(builder: Builder, value: SSAValue, shape: Sequence[int]) -> SSAValue:
    """``value`` viewed with ``shape`` (``value`` itself when it already has it)."""
    if shape_of(value) == tuple(shape):
        return value
    return builder.insert(ReshapeOp(value, list(shape))).result


_INDEX = IndexType()


def emit_loop(builder: Builder, extent: int, step: int) -> tuple[Builder, SSAValue]:
    """``scf.for %iv = 0 to extent step step`` at the builder; returns a builder inside it and
    the induction variable (call again with that builder for the next loop of a nest)."""
    from xdsl.dialects import scf  # imported by the first loop built: a kernel may have none

    lb, ub, st = const_index(builder, 0), const_index(builder, extent), const_index(builder, step)
    body = Block(arg_types=[_INDEX])
    yield_op = new_op(scf.YieldOp, (), ())  # ``scf.YieldOp()``
    body.add_op(yield_op)
    loop = new_op(scf.ForOp, (lb, ub, st), ())  # ``scf.ForOp(lb, ub, st, [], body)``
    loop.add_region(Region(body))
    builder.insert(loop)
    return nested_builder(builder, InsertPoint.before(yield_op)), body.args[0]


def insert_tile_op(builder: Builder, new_op: TileOp, origin: TileOp) -> TileOp:
    """Insert a tile op that a variant decomposes ``origin`` into, at ``origin``'s source
    location (so a failure to dispatch it points at the user's op)."""
    new_op.location = origin.location
    return builder.insert(new_op)


# --- choosing sizes -------------------------------------------------------------------------------


def largest_divisor_at_most(n: int, limit: int) -> int:
    """The largest divisor of ``n`` that is at most ``limit`` (at least 1)."""
    limit = max(1, min(n, limit))
    for c in range(limit, 0, -1):
        if n % c == 0:
            return c
    return 1


def align(shape: Sequence[int], iter_shape: Sequence[int], what: str) -> tuple[int, ...]:
    """An operand's shape aligned to the iteration space: equal once unit dims drop (then it is
    full), else NumPy right-aligned broadcasting (1 where it broadcasts). Raises
    `rules.RuleError` naming ``what`` when it does not broadcast."""
    if rules.squeeze(shape) == rules.squeeze(iter_shape):
        return tuple(iter_shape)
    rules.check_broadcast(what, shape, iter_shape)
    return (1,) * (len(iter_shape) - len(shape)) + tuple(shape)


def is_full(value: SSAValue, iter_shape: Sequence[int]) -> bool:
    """Whether a buffer operand covers the whole iteration space (no broadcast)."""
    return math.prod(shape_of(value)) == math.prod(iter_shape)


# --- config ---------------------------------------------------------------------------------------


def config_int(op: TileOp, key: str) -> int | None:
    """The positive integer ``config`` entry ``key`` of a tile op, None when absent; any other
    value declines the variant with a reason."""
    attr = op.config_dict().get(key)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.value.data <= 0:
        fail(f"config {key} must be a positive integer, got {attr}")
    return int(attr.value.data)


def _config_value(attr: Attribute) -> object:
    """A config attribute as Python: a string, a bool (``true``/``false``, a unit), an int."""
    from xdsl.dialects.builtin import StringAttr, UnitAttr

    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, IntegerAttr):
        width = getattr(attr.type, "width", None)
        if width is not None and width.data == 1:
            return bool(attr.value.data)
        return int(attr.value.data)
    return attr


def check_config(op: TileOp, accepted: Sequence[str]) -> None:
    """Declines the variant when ``op``'s ``config`` has a key outside ``accepted``, naming
    the keys it takes."""
    unknown = sorted(set(op.config_dict()) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) if accepted else "none"
        fail(f"config {', '.join(unknown)} is not a config of this variant (it takes: "
             f"{takes})")


def config_choice(op: TileOp, key: str, choices: Sequence[object],
                  default: object = None) -> object:
    """The ``config`` entry ``key`` of ``op`` as Python (`_config_value`), ``default`` when
    absent; a value outside ``choices`` declines the variant, listing them."""
    attr = op.config_dict().get(key)
    if attr is None:
        return default
    value = _config_value(attr)
    if value not in choices or type(value) is not type(choices[0]):
        shown = ", ".join(f'"{c}"' if isinstance(c, str) else str(c).lower() for c in choices)
        fail(f"config {key} must be one of {shown}, got {attr}")
    return value
