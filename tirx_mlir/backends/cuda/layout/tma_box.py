"""How a TMA copy between a global tensor and a shared tile splits into boxes.

A tiled tensor map (``cuTensorMapEncodeTiled``, CUDA Driver API "Tensor Map Object
Management") moves one *box* per ``cp.async.bulk.tensor``: at most 256 elements per dim, the
inner dim a multiple of 16 bytes and, swizzled, no wider than the swizzle span; the box lands in
shared memory in C order, the span's pattern applied to the absolute shared address. Our shared
tiles (`swizzle.swizzled_layout`) are column blocks of one swizzled row each, so a ``[rows,
cols]`` tile is ``cols / W`` boxes of ``W`` columns (``W`` = row bytes / element bytes), each
split into row blocks of at most 256 rows: box ``(i, j)`` holds tile rows ``i*Rb ..`` and
columns ``j*W ..`` and starts ``j * rows * W + i * Rb * W`` elements after the tile, a whole
number of patterns since ``Rb`` is a multiple of 8. An unswizzled (row-major) tile is one
column block, its rows at most 256 elements of a multiple of 16 bytes.

The global side is a row-major tensor; the tile's columns run along its last dim and its rows
along one other dim (``row_dim``), every other dim of the box being 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from tirx_mlir.backends.cuda.layout.swizzle import Swizzle, block_elements

MAX_BOX = 256
MAX_RANK = 5


@dataclass(frozen=True)
class TmaBox:
    """One instruction: its shared offset (elements from the tile's start) and the offset of
    its first element from the region's start, per global dim (outermost first)."""

    smem_offset: int
    coords: tuple[int, ...]


@dataclass(frozen=True)
class TmaPlan:
    """The box shape (global dims, outermost first), the tensor map's swizzle, the boxes."""

    box: tuple[int, ...]
    swizzle: Swizzle
    boxes: tuple[TmaBox, ...]
    elem_bytes: int

    @property
    def box_bytes(self) -> int:
        return math.prod(self.box) * self.elem_bytes

    @property
    def total_bytes(self) -> int:
        """The transaction bytes of the whole copy (what its mbarrier expects)."""
        return self.box_bytes * len(self.boxes)


def _row_block(rows: int, swizzled: bool) -> int | None:
    step = 8 if swizzled else 1
    for rb in range(min(rows, MAX_BOX), 0, -1):
        if rows % rb == 0 and rb % step == 0:
            return rb
    return None


def plan_tma(rows: int, cols: int, mode: Swizzle, elem_bytes: int,
             global_shape: Sequence[int], row_dim: int) -> TmaPlan | str:
    """The boxes of a ``[rows, cols]`` shared tile (``mode``: its swizzle) copied from or to a
    row-major global tensor of ``global_shape`` whose last dim holds the columns and
    ``row_dim`` the rows; or the reason it cannot be done."""
    rank = len(global_shape)
    if not 1 <= rank <= MAX_RANK:
        return f"a tensor map has rank 1 to {MAX_RANK}; the global tensor has rank {rank}"
    if rank > 1 and not 0 <= row_dim < rank - 1:
        return "the tile's rows must run along a global dim before the contiguous one"
    strides = [elem_bytes * math.prod(global_shape[d + 1:]) for d in range(rank - 1)]
    bad = [s for s in strides if s % 16]
    if bad:
        return (f"the global tensor's row strides {strides} bytes must be multiples of 16 "
                f"for a tensor map")
    if mode is Swizzle.NONE:
        width = cols
        if cols > MAX_BOX or (cols * elem_bytes) % 16:
            return (f"an unswizzled TMA box row is at most {MAX_BOX} elements of a multiple of "
                    f"16 bytes; the tile's rows are {cols} elements ({cols * elem_bytes} B)")
    else:
        width = block_elements(mode, elem_bytes)
        if cols % width or rows % 8:
            return (f"a {mode.tensor_map_name}-swizzled tile is column blocks of {width} "
                    f"elements and 8-row groups; [{rows}, {cols}] is not")
    rb = _row_block(rows, mode is not Swizzle.NONE)
    if rb is None or (rank == 1 and rows != 1):
        return f"the tile's {rows} rows do not split into TMA boxes"
    box = [1] * rank
    box[-1] = width
    if rank > 1:
        box[row_dim] = rb
    boxes = []
    for j in range(cols // width):
        for i in range(rows // rb):
            coords = [0] * rank
            coords[-1] = j * width
            if rank > 1:
                coords[row_dim] = i * rb
            boxes.append(TmaBox(j * rows * width + i * rb * width, tuple(coords)))
    return TmaPlan(tuple(box), mode, tuple(boxes), elem_bytes)
