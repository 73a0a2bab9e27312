"""Scratch on-chip tiles and f32 constants that Trainium dispatch variants create (re-exported
by `common`; a module of its own so that `partition_broadcast`, which `common` uses, needs
nothing from `common`)."""

from __future__ import annotations

from typing import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, f32
from xdsl.ir import Attribute, SSAValue

from tirx_mlir.backends.trn.memory import SBUF
from tirx_mlir.dispatch.builders import alloc


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
