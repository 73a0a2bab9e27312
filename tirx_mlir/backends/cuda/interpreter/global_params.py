"""Kernel parameters with a global layout in the SIMT interpreter's memory.

The core hands a kernel its global arguments as *logical* arrays; one whose parameter has a
non-row-major global layout (``S[(512,256):(1,512)]``, head padding) is a strided view of a
memory of the layout's span (`tirx_mlir.dialects.tirx.global_layout`). The lowered code indexes
that memory physically (``cuda.load %X, i`` reads element ``i`` of the span), so the interpreter
maps the memory, not the logical array: mapping the view's bytes (``np.ascontiguousarray``) put
the elements in logical order and read outputs back through a copy, so a column-major parameter
read and wrote the wrong elements.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.memory import FRESH_BYTE
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.global_layout import GlobalPlacement, global_placement


def placement(btype: BufferType) -> GlobalPlacement | None:
    """How a parameter of ``btype`` lies in memory; None for the row-major array itself (the
    core's launch checked the layout already)."""
    if btype.get_layout() is None:
        return None
    placed = global_placement(btype)
    return None if placed.is_row_major() else placed


def physical(arr: np.ndarray, placed: GlobalPlacement | None) -> np.ndarray:
    """The memory ``arr`` (logical) lies in: itself, or a span of fresh bytes with ``arr``
    placed where the layout puts it."""
    if placed is None:
        return arr
    memory = np.empty(placed.span, arr.dtype)
    memory.view(np.uint8)[...] = FRESH_BYTE
    return placed.place(arr, memory)


def read_logical(data: np.ndarray, out: np.ndarray, placed: GlobalPlacement | None) -> None:
    """Write the memory ``data`` (bytes) back into ``out`` (logical) through the layout."""
    typed = data.view(out.dtype)
    out[...] = typed.reshape(out.shape) if placed is None else placed.logical_view(typed)
