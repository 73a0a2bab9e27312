"""How the warps of a warp- or cta-scope op share a register tile: every warp holds the same
registers, for a block of the tile that is warp 0's block moved by the warp's origin.

A variant reads the blocks one warp holds (mma accumulator tiles, 8x8 matrices) with a reader
from layout/fragments.py; `warp_blocks` checks that every warp's reading is warp 0's translated,
and `warp_origin` builds the warp's origin from the ``warpid`` part of the layout's thread
coordinates (`RegisterPartition`), checked against the origins read off the layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from tirx_mlir.backends.cuda.dispatch.common import ThreadIds
from tirx_mlir.backends.cuda.layout.fragments import Holders
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition, partition_of
from tirx_mlir.dialects.tirx.access import IndexExpr
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dispatch import fail


@dataclass(frozen=True)
class WarpBlocks:
    """``items``: warp 0's blocks with their origins made relative to its first block's
    (``(origin, *rest)``); ``deltas[w]``: the origin of warp w's first block."""

    items: list[tuple]
    deltas: list[tuple[int, int]]


def warp_blocks(holders: Holders, warps: int, read: Callable[[int], list[tuple] | None],
                what: str) -> WarpBlocks:
    """Read each warp's blocks with ``read(warp)`` (None: the layout is not such a grid, which
    declines naming ``what``)."""
    if holders.warps > warps:
        fail(f"{what}'s layout spreads over {holders.warps} warps but the op runs on {warps}")
    base = read(0)
    if not base:
        fail(f"{what}'s register layout is not a grid of the fragments this variant moves")
    first = base[0][0]
    deltas = [first]
    for w in range(1, holders.warps):
        blocks = read(w)
        if blocks is None or [x[1:] for x in blocks] != [x[1:] for x in base]:
            fail(f"warp {w} holds {what} in other registers than warp 0")
        d = blocks[0][0]
        if any((o[0][0] - d[0], o[0][1] - d[1]) != (x[0][0] - first[0], x[0][1] - first[1])
               for o, x in zip(blocks, base)):
            fail(f"warp {w}'s block of {what} is not a translate of warp 0's")
        deltas.append(d)
    items = [((x[0][0] - first[0], x[0][1] - first[1]), *x[1:]) for x in base]
    return WarpBlocks(items, deltas)


def warp_origin(ids: ThreadIds, layout: TileLayout, shape: Sequence[int],
                deltas: Sequence[tuple[int, int]], what: str) -> tuple[IndexExpr, ...]:
    """The running warp's ``deltas`` entry as index expressions: warp 0's, plus the ``warpid``
    part of the layout's thread coordinates (`RegisterPartition.thread_coords`), checked against
    every warp's."""
    base = tuple(IndexExpr(x) for x in deltas[0])
    if len(deltas) == 1:
        return base
    try:
        part = partition_of(layout, shape)
    except PartitionError as err:
        fail(f"{what}: {err}")
    for w, delta in enumerate(deltas):
        got = part.thread_coords_of({ax: w if ax == "warpid" else 0 for ax in part.threads})
        if tuple(d - d0 for d, d0 in zip(delta, deltas[0])) != got:
            fail(f"{what}'s warps in layout {layout} are not one warpid digit per block")

    def digit(value, stride, extent, offset):
        return 0 if value is None else ids.digit(value, stride, extent, offset)

    warp = part.thread_coords({ax: ids["warpid"] if ax == "warpid" else None
                               for ax in part.threads}, digit)
    return tuple(b + w for b, w in zip(base, warp))
