"""Scratch on-chip tiles and f32 constants that Trainium dispatch variants create (re-exported
by `common`; a module of its own so that `partition_broadcast`, which `common` uses, needs
nothing from `common`), and the caller-supplied workspace that replaces a variant's scratch
(`scratch_tile`)."""

from __future__ import annotations

import math
from typing import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, f32
from xdsl.ir import Attribute, SSAValue

from tirx_mlir.backends.trn.memory import SBUF
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.buffer_ops import ReshapeOp, SliceOp
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch import fail
from tirx_mlir.dispatch.builders import alloc, btype


def f32_const(builder: Builder, x: float) -> SSAValue:
    return builder.insert(arith.ConstantOp(FloatAttr(float(x), f32))).result


def local_tile(builder: Builder, shape: Sequence[int], element_type: Attribute,
               scope_name: str = SBUF) -> SSAValue:
    """A scratch on-chip tile allocated where the op was (its lifetime ends with its last use,
    so the allocator reuses its memory), with the default Trainium layout like every on-chip
    buffer after trn-default-layout."""
    from tirx_mlir.backends.trn.layout.layouts import default_layout

    layout = default_layout(shape)
    return alloc(builder, shape, element_type, scope_name, layout)


def scratch_tile(builder: Builder, op: TileOp, shape: Sequence[int], element_type: Attribute,
                 scope_name: str, what: str) -> SSAValue:
    """The scratch tile ``shape`` a variant of ``op`` needs (``what`` it is for): a view of the
    op's ``workspace`` when the caller gave one, else a fresh `local_tile`.

    A workspace is a ``[P, F]`` tile of ``scope_name`` and ``element_type`` with at least
    ``shape[0]`` partitions and ``prod(shape[1:])`` free elements; the variant uses its first
    ones (a slice, reshaped to ``shape``). Anything else fails the variant with what it needs
    (the dispatch error table shows it at the op)."""
    given = tuple(op.variadic_operands().get("workspace", ()))
    if not given:
        return local_tile(builder, shape, element_type, scope_name)
    workspace = given[0]
    wtype = btype(workspace)
    parts, free = shape[0], math.prod(shape[1:])
    need = (f"{what} needs a workspace of at least [{parts}, {free}] "
            f"{dtypes.type_name(element_type)} in {scope_name}")
    if wtype.scope_name != scope_name:
        fail(f"{need}; the workspace is in {wtype.scope_name}")
    if wtype.element_type != element_type:
        fail(f"{need}; the workspace holds {dtypes.type_name(wtype.element_type)}")
    wshape = wtype.get_shape()
    if len(wshape) != 2 or wshape[0] < parts or wshape[1] < free:
        fail(f"{need}; the workspace is {list(wshape)}")
    view = workspace
    if tuple(wshape) != (parts, free):
        view = builder.insert(SliceOp(workspace, [0, 0], [parts, free])).result
    if len(shape) != 2 or shape[1] != free:
        view = builder.insert(ReshapeOp(view, list(shape))).result
    return view
