"""Trainium layouts: the default layout of an on-chip buffer, the rules a user layout must obey,
and the physical tile a layout describes.

A Trainium layout maps logical elements to ``P`` (partition) and ``F`` (element offset within a
partition) coordinates; PSUM layouts may also name ``Bank`` (a 2 KiB bank), which is just a
large ``F`` stride. Examples (TIRx's, apache/tvm `python/tvm/backend/trn/layout.py`):

* ``S[(128,512):(1@P,1@F)]``: the default of ``128x512`` (dim 0 on partitions);
* ``S[(2,128,2048):(2048@F,1@P,1@F)]``: the default of ``256x2048``, where dim 0 is split and its
  high part moves to the free axis;
* ``S[(128,128):(1@F,1@P)]``: a transposed tile (dim 1 on partitions).

After `trn-lower-layout` a buffer is the physical tile ``[P_span, F_span]`` (`physical_shape`).
"""

from __future__ import annotations

import math
from typing import Sequence

from tirx_mlir.backends.trn.memory import AXES, PARTITIONS, PSUM, PSUM_BANK_BYTES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType, decoded
from tirx_mlir.dialects.tirx.layout import Iter, TileLayout, row_major_strides


class TrnLayoutError(ValueError):
    """A layout that is not a valid Trainium layout for its buffer (message says what to fix)."""


def default_layout(shape: Sequence[int], partitions: int = PARTITIONS) -> TileLayout:
    """TIRx's default Trainium layout: dim 0 on partitions, the other dims row-major on F; a
    dim 0 larger than ``partitions`` is split into tiles of ``partitions`` rows whose index
    becomes the outermost F iterator. When ``partitions`` does not divide dim 0 the last tile is
    partial: the layout is that of dim 0 rounded up to whole tiles (257 rows: two full tiles
    and one of 1 row; the shard covers 384 rows, `TileLayout.pads_dim0`), as a hand-written
    NKI kernel tiles a ragged dim.

    >>> str(default_layout([256, 2048]))
    'S[(2,128,2048):(2048@F,1@P,1@F)]'
    >>> str(default_layout([257, 7]))
    'S[(3,128,7):(7@F,1@P,1@F)]'
    """
    if not shape:
        raise TrnLayoutError("a 0-d buffer has no Trainium layout; give it shape [1, 1]")
    rows, rest = shape[0], list(shape[1:])
    free = row_major_strides(rest)
    free_span = math.prod(rest)
    iters = [Iter(n, s, "F") for n, s in zip(rest, free)]
    if rows <= partitions:
        return TileLayout((Iter(rows, 1, "P"), *iters))
    tiles = -(-rows // partitions)
    return TileLayout((Iter(tiles, free_span, "F"), Iter(partitions, 1, "P"), *iters))


def partition_tile_rows(btype: BufferType, partitions: int = PARTITIONS) -> int | None:
    """Rows per partition tile of an on-chip buffer whose dim 0 is split into partition tiles
    (``S[(2,128,...):(...@F,1@P,...)]`` for 256 rows, ``S[(3,128,...):...]`` for 257 rows, whose
    last tile is partial), else None."""
    if partitions == PARTITIONS:
        return decoded(btype, "_trn_partition_tile_rows", _partition_tile_rows)
    return _partition_tile_rows(btype, partitions)


def _partition_tile_rows(btype: BufferType, partitions: int = PARTITIONS) -> int | None:
    shape = btype.get_shape()
    layout = effective_layout(btype, partitions)
    if len(shape) < 1 or len(layout.shard) < 2:
        return None
    outer, tile = layout.shard[0], layout.shard[1]
    if outer.axis != "F" or tile.axis != "P" or tile.stride != 1 or outer.extent < 2:
        return None
    covered = outer.extent * tile.extent
    inner = math.prod(shape[1:])
    if layout.size() != covered * inner or not covered - tile.extent < shape[0] <= covered:
        return None
    return tile.extent


def effective_layout(btype: BufferType, partitions: int = PARTITIONS) -> TileLayout:
    """The buffer's layout with Bank iterators folded into F; the default when it has none
    (kept with the type, which is immutable)."""
    if partitions == PARTITIONS:
        return decoded(btype, "_trn_effective_layout", _effective_layout)
    return _effective_layout(btype, partitions)


def _effective_layout(btype: BufferType, partitions: int = PARTITIONS) -> TileLayout:
    layout = btype.get_layout()
    if layout is None:
        return default_layout(btype.get_shape(), partitions)
    return fold_banks(layout, btype)


def bank_elements(btype: BufferType) -> int:
    """Elements of the buffer's type in one PSUM bank (512 for f32)."""
    return PSUM_BANK_BYTES // dtypes.itemsize(btype.element_type)


def fold_banks(layout: TileLayout, btype: BufferType) -> TileLayout:
    """Rewrite ``k@Bank`` strides as ``k * bank_elements@F`` (a bank is 2 KiB of F)."""
    if "Bank" not in layout.axes():
        return layout
    per_bank = bank_elements(btype)
    shard = tuple(Iter(it.extent, it.stride * per_bank, "F") if it.axis == "Bank" else it
                  for it in layout.shard)
    offset: dict[str, int] = {}
    for ax, off in layout.offset:
        ax2, off2 = ("F", off * per_bank) if ax == "Bank" else (ax, off)
        offset[ax2] = offset.get(ax2, 0) + off2
    return TileLayout(shard, layout.replica, tuple(offset.items()), layout.swizzle)


def check_trn_layout(btype: BufferType, partitions: int = PARTITIONS) -> TileLayout:
    """Verify that the buffer's (explicit or default) layout is a Trainium layout and return it
    with banks folded; raises TrnLayoutError naming the rule and the fix."""
    layout = btype.get_layout()
    where = _BufferName(btype)  # formatted only into an error message
    if layout is None:
        return default_layout(btype.get_shape(), partitions)
    bad = [ax for ax in layout.axes() if ax not in AXES]
    if bad:
        raise TrnLayoutError(f"{where}: layout axes {', '.join(bad)} are not Trainium axes; an "
                             f"on-chip Trainium layout uses only P, F (and Bank for PSUM)")
    if "Bank" in layout.axes() and btype.scope_name != PSUM:
        raise TrnLayoutError(f"{where}: the Bank axis exists only in {PSUM}")
    if layout.replica:
        raise TrnLayoutError(f"{where}: replicated layouts (R[...]) are not supported on "
                             f"Trainium; store one copy per element")
    if layout.swizzle is not None:
        raise TrnLayoutError(f"{where}: swizzled layouts are not supported on Trainium")
    folded = fold_banks(layout, btype)
    if "P" not in folded.axes():
        raise TrnLayoutError(f"{where}: the layout puts nothing on partitions; map one dim "
                             f"to P (e.g. S[(128,512):(1@P,1@F)])")
    p_span = folded.span("P")
    if p_span > partitions:
        try:
            example = f" (e.g. {default_layout(btype.get_shape(), partitions)})"
        except TrnLayoutError:
            example = ""
        raise TrnLayoutError(f"{where}: the layout spans {p_span} partitions but the target has "
                             f"{partitions}; split the partition dim and move its high part to "
                             f"F{example}")
    if not _is_injective(folded):
        raise TrnLayoutError(f"{where}: the layout maps two elements to the same (P, F) "
                             f"coordinate; give each iterator a distinct stride range")
    return folded


class _BufferName:
    """``buffer <type>`` for a message, the type printed only when a message is made."""

    __slots__ = ("btype",)

    def __init__(self, btype: BufferType):
        self.btype = btype

    def __str__(self) -> str:
        return f"buffer {self.btype}"


def _is_injective(layout: TileLayout) -> bool:
    """Distinct logical elements land on distinct (P, F) coordinates.

    Sufficient test: on each axis, the iterators sorted by stride nest without overlap
    (stride_i >= extent_{i+1} * stride_{i+1}); otherwise enumerate (small layouts only).
    """
    for axis in ("P", "F"):
        its = sorted((it for it in layout.shard if it.axis == axis and it.extent > 1),
                     key=lambda it: it.stride)
        if any(it.stride == 0 for it in its):
            return False
        if any(outer.stride < inner.extent * inner.stride for inner, outer in zip(its, its[1:])):
            break
    else:
        return True
    if layout.size() > 1 << 22:
        return True  # too large to enumerate; the nesting test above is only sufficient
    coords = layout.apply_array([layout.size()])
    key = coords.get("P", 0) * layout.span("F") + coords.get("F", 0)
    import numpy as np

    return len(np.unique(key)) == layout.size()


def physical_shape(layout: TileLayout) -> tuple[int, int]:
    """``(P_span, F_span)``: the physical tile that holds the layout (partition dim first)."""
    return layout.span("P"), layout.span("F")
