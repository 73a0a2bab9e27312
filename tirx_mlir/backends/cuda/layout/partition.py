"""Who holds what: a layout with thread axes read as a distribution of a tile over threads.

A register layout (or the iteration layout a variant synthesizes for a memory tile) is a
`TileLayout` whose shard iterators sit on thread axes (``tx``, ``laneid``, ``warpid``, ...) and on
the memory axis ``m`` (for registers: the register index in each thread). `RegisterPartition`
splits the layout's iterators at the buffer's dim boundaries, so each iterator walks exactly one
dim; then the logical coordinate of an element is, dim by dim, the sum of

* a **thread part**: for each thread-axis iterator ``extent:stride@axis`` the digit
  ``(axis_value // stride) % extent`` times the iterator's weight in its dim, the same
  expression for every register (built once, hoisted: `thread_coords`);
* a **register part**: a Python int per register (`reg_coords`), from the ``m`` iterators.

So ``coord(thread, r) = thread_coords(thread) + reg_coords(r)``, which lets a variant fully
unroll its register loop with constant register indices and one hoisted address per thread.

Replica iterators on thread axes mean several threads hold the same elements (`replicas`); a
variant that writes memory from such a tile lets only replica 0 write. Layouts that cannot be
split at the dims (an iterator straddling dims with extents that do not divide) are refused
with `PartitionError`, which variants turn into a decline.

A partition never changes once built, and dispatch asks for the same few (layout, shape) pairs
many times: `partition_of` builds each once per process. `thread_coords_array` is
`thread_coords_of` for many threads at once (numpy), for the static checks over a scope.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.dialects.tirx.access import IndexExpr
from tirx_mlir.dialects.tirx.layout import THREAD_AXES, Iter, TileLayout

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

MEMORY_AXIS = "m"


class PartitionError(ValueError):
    """A layout that is not a distribution of the buffer over threads and registers."""


@dataclass(frozen=True)
class _DimIter:
    """A shard iterator refined to walk one dim: ``digit * weight`` adds to coordinate ``dim``."""

    extent: int
    stride: int
    axis: str
    dim: int
    weight: int


def _refine(shard: Sequence[Iter], shape: Sequence[int]) -> list[_DimIter]:
    """Split the shard's iterators (innermost first) at the dims' boundaries (innermost first)."""
    dims = [(d, n) for d, n in enumerate(shape) if n != 1]
    out: list[_DimIter] = []
    di = len(dims) - 1
    weight = 1
    remaining = dims[di][1] if dims else 1
    for it in reversed(shard):
        extent, stride = it.extent, it.stride
        while extent > 1:
            if di < 0:
                raise PartitionError(f"layout iterator {it.extent}:{it} runs past the buffer")
            if remaining % extent == 0:
                out.append(_DimIter(extent, stride, it.axis, dims[di][0], weight))
                weight *= extent
                remaining //= extent
                extent = 1
            elif extent % remaining == 0:
                out.append(_DimIter(remaining, stride, it.axis, dims[di][0], weight))
                stride *= remaining
                extent //= remaining
                remaining = 1
            else:
                raise PartitionError(
                    f"layout iterator {it.extent}:{it} straddles dims of the buffer "
                    f"{'x'.join(map(str, shape))} whose extents it does not divide")
            if remaining == 1:
                di -= 1
                weight = 1
                remaining = dims[di][1] if di >= 0 else 1
    return out


def splits_at_dims(shard: Sequence[Iter], shape: Sequence[int]) -> bool:
    """Whether the iterators split at the dims' boundaries of ``shape`` (a partition of a
    layout with this shard is not refused for straddling them)."""
    try:
        _refine(shard, shape)
    except PartitionError:
        return False
    return True


class RegisterPartition:
    """A tile of ``shape`` distributed by ``layout`` over thread axes and the register axis."""

    def __init__(self, layout: TileLayout, shape: Sequence[int]):
        if layout.swizzle is not None:
            raise PartitionError(f"layout {layout} is swizzled; a register layout is not")
        for it in (*layout.shard, *layout.replica):
            if it.axis != MEMORY_AXIS and it.axis not in THREAD_AXES:
                raise PartitionError(f"layout {layout} uses axis '{it.axis}', neither a thread "
                                     f"axis nor the register axis m")
        if layout.size() != math.prod(shape):
            raise PartitionError(f"layout {layout} covers {layout.size()} elements, the tile "
                                 f"{'x'.join(map(str, shape))} has {math.prod(shape)}")
        self.layout = layout
        self.shape = tuple(shape)
        self.iters = _refine(layout.shard, shape)
        self.nregs = layout.span(MEMORY_AXIS) if MEMORY_AXIS in layout.axes() else 1
        # an axis's extent is its span: several iterators on one axis add up (the wgmma and
        # mma fragments put 8:4@laneid and 4:1@laneid in one layout: 32 lanes)
        self.threads: dict[str, int] = {
            it.axis: layout.span(it.axis) - layout.offset_of(it.axis)
            for it in (*layout.shard, *layout.replica) if it.axis != MEMORY_AXIS}
        self.replicas = tuple(it for it in layout.replica if it.axis != MEMORY_AXIS)
        self._reg_coords = self._enumerate_registers()

    # ---- the register part ----
    def _enumerate_registers(self) -> dict[int, tuple[int, ...]]:
        regs = [it for it in self.iters if it.axis == MEMORY_AXIS]
        offset = self.layout.offset_of(MEMORY_AXIS)
        table: dict[int, tuple[int, ...]] = {}
        for flat in range(math.prod(it.extent for it in regs)):
            coord = [0] * len(self.shape)
            m = offset
            rest = flat
            for it in regs:  # innermost first
                rest, digit = divmod(rest, it.extent)
                coord[it.dim] += digit * it.weight
                m += digit * it.stride
            if m in table:
                raise PartitionError(f"layout {self.layout} puts two elements in register {m}")
            table[m] = tuple(coord)
        return table

    def registers(self) -> list[int]:
        """The register indices that hold elements, in increasing order."""
        return sorted(self._reg_coords)

    def reg_coords(self, reg: int) -> tuple[int, ...]:
        """The register part of the logical coordinate of register ``reg``."""
        return self._reg_coords[reg]

    def reg_of(self, reg_part: Sequence[int]) -> int | None:
        """The register whose register part is ``reg_part`` (None if no register has it)."""
        return self._inverse().get(tuple(reg_part))

    def _inverse(self) -> dict[tuple[int, ...], int]:
        inv = getattr(self, "_inv", None)
        if inv is None:
            inv = self._inv = {c: r for r, c in self._reg_coords.items()}
        return inv

    # ---- the thread part ----
    def thread_digits(self) -> list[_DimIter]:
        return [it for it in self.iters if it.axis != MEMORY_AXIS]

    def thread_coords(self, axis_values: Mapping[str, "IndexExpr | object"],
                      digit) -> tuple[IndexExpr, ...]:
        """The thread part of the coordinate, per dim: ``digit(axis_value, stride, extent)``
        builds ``(axis_value // stride) % extent`` (an SSA index value); ``axis_values`` maps
        each thread axis the layout uses to its value."""
        coords = [IndexExpr()] * len(self.shape)
        offsets = dict(self.layout.offset)
        for it in self.thread_digits():
            value = digit(axis_values[it.axis], it.stride, it.extent, offsets.get(it.axis, 0))
            coords[it.dim] = coords[it.dim] + IndexExpr.of(value).scale(it.weight)
        return tuple(coords)

    def thread_coords_of(self, thread: Mapping[str, int]) -> tuple[int, ...]:
        """The thread part for concrete axis values (tests, static checks)."""
        return tuple(e.const for e in self.thread_coords(
            thread, lambda v, s, e, o: ((v - o) // s) % e))

    def thread_coords_array(self, axis_values: Mapping[str, np.ndarray],
                            count: int) -> np.ndarray:
        """`thread_coords_of` for ``count`` threads at once: ``axis_values`` maps each thread
        axis the layout uses to its ``count`` values; [count, rank] int64."""
        coords = np.zeros((count, len(self.shape)), dtype=np.int64)
        offsets = dict(self.layout.offset)
        for it in self.thread_digits():
            values = np.asarray(axis_values[it.axis], dtype=np.int64)
            digit = ((values - offsets.get(it.axis, 0)) // it.stride) % it.extent
            coords[:, it.dim] += digit * it.weight
        return coords

    def covers_thread_axes(self, scope_axes: Mapping[str, int]) -> bool:
        """Whether the layout spans each thread axis fully (``scope_axes``: axis -> extent)."""
        return all(self.threads.get(ax, 1) <= n for ax, n in scope_axes.items())


_PARTITIONS: dict[tuple[TileLayout, tuple[int, ...]], RegisterPartition] = {}
"""(layout, shape) -> its partition (`partition_of`)."""


def partition_of(layout: TileLayout, shape: Sequence[int]) -> RegisterPartition:
    """``RegisterPartition(layout, shape)``, built once per distinct pair (a refused pair raises
    `PartitionError` each time it is asked for)."""
    key = (layout, tuple(shape))
    part = _PARTITIONS.get(key)
    if part is None:
        part = _PARTITIONS[key] = RegisterPartition(layout, shape)
    return part
