"""Default layouts: how a register tile is spread over the threads of its scope, and the iteration
layout a variant synthesizes to share out the elements of a memory tile.

Both are TIRx's ``[outer, threads, vec]`` partition (apache/tvm
``python/tvm/backend/cuda/tile_primitive/copy/vec_auto_gmem_smem.py``): the row-major flat index
of the tile is split into ``outer`` rounds of ``threads`` threads, each taking ``vec``
consecutive elements, with ``vec`` the widest that fits 16 bytes and divides the last dim, so
one thread's elements of a round are one vector access. When the scope's threads do not divide
the vectors, or a round of them straddles the tile's rows, the largest thread count that divides
them and keeps each round whole rows (or a part of one) takes part; the other threads hold nothing.

A scope's threads are named by one axis: a warp's by ``laneid``, a warpgroup's by ``tid_in_wg``,
a CTA's by ``tx`` (TIRx's layout thread axes). A thread-scope tile is held whole by its thread
(row-major on ``m``).
"""

from __future__ import annotations

import math
from typing import Sequence

from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.backends.cuda.layout.partition import splits_at_dims
from tirx_mlir.dialects.tirx.layout import Iter, TileLayout

MAX_VECTOR_BYTES = 16
MAX_VECTOR_LANES = 4
"""``ld``/``st`` take at most ``.v4`` vectors: 16 bytes of 4-byte elements, 8 of 2-byte ones
unless the elements travel packed, two or four to a 32-bit register."""

SCOPE_AXIS = {ExecScope.WARP: "laneid", ExecScope.WARPGROUP: "tid_in_wg", ExecScope.CTA: "tx"}
"""The thread axis that numbers the threads of one instance of a scope."""


def scope_threads(scope: ExecScope, block_threads: int) -> int:
    """Threads in one instance of ``scope`` in a block of ``block_threads``."""
    return {ExecScope.THREAD: 1, ExecScope.WARP: 32, ExecScope.WARPGROUP: 128}.get(
        scope, block_threads)


def vector_width(shape: Sequence[int], elem_bytes: int, limit: int = MAX_VECTOR_BYTES,
                 lanes: int = MAX_VECTOR_LANES) -> int:
    """The widest power-of-two element count of at most ``limit`` bytes and ``lanes`` elements
    dividing the last dim. ``lanes`` is 4 (``ld``/``st.v4``, one register per element) unless
    the caller moves the elements as packed 32-bit words (a plain copy between memories)."""
    last = shape[-1] if shape else 1
    v = max(1, min(lanes, limit // max(1, elem_bytes)))
    while v > 1 and last % v:
        v //= 2
    return v


def spread_layout(shape: Sequence[int], axis: str | None, threads: int, vec: int) -> TileLayout:
    """``S[(outer, threads, vec):(vec, 1@axis, 1)]`` over the row-major flat index (fewer threads
    when they do not divide the tile); row-major on ``m`` without an axis."""
    numel = math.prod(shape)
    if axis is None or threads <= 1:
        return TileLayout.row_major(list(shape) or [1])
    while vec > 1 and numel % vec:
        vec //= 2
    # the scope's threads, else fewer: the most that divide the vectors evenly (the others
    # hold nothing) and whose rounds split at the tile's dims (32 threads of 4-element vectors
    # straddle rows of 12; 24 threads take 8 whole rows a round)
    counts = [c for c in range(threads, 0, -1) if (numel // vec) % c == 0]
    for count in counts:
        layout = _spread(numel, axis, count, vec)
        if count == 1 or splits_at_dims(layout.shard, shape):
            return layout
    return layout


def _spread(numel: int, axis: str, threads: int, vec: int) -> TileLayout:
    outer = numel // (threads * vec)
    iters = [Iter(outer, vec), Iter(threads, 1, axis), Iter(vec, 1)]
    return TileLayout(tuple(it for it in iters if it.extent > 1) or (Iter(1, 1),))


def default_register_layout(shape: Sequence[int], elem_bytes: int, scope: ExecScope,
                            block_threads: int) -> TileLayout:
    """The register layout of a ``local`` tile first used at ``scope``."""
    return spread_layout(shape, SCOPE_AXIS.get(scope), scope_threads(scope, block_threads),
                         vector_width(shape, elem_bytes))
