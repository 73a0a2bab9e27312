"""Who combines with whom in a CUDA reduction: the source's distribution over the threads of the
scope read as bit fields of ``threadIdx.x``, and what follows from it.

A reduction's source is spread over the scope's threads by a layout (a register tile's own
layout, or for a memory tile the spread `memory_spread` synthesizes), read as a
`RegisterPartition`: each thread digit ``(axis // stride) % extent`` with power-of-two stride
and extent is a run of bits of ``threadIdx.x`` (``laneid`` = bits 0-4, ``warpid`` = bits 5.., ...).
Then, for the reduced dims ``axes``:

* each thread first folds the elements it holds that share a kept coordinate (its *keys*: the
  register part of the kept dims);
* the threads that differ only in **reduced lane bits** hold parts of the same rows: a xor
  butterfly over those bits (``shfl.sync.bfly``) gives each of them the warp's total;
* **reduced warp bits** (bit 5 and up) are partial results of other warps: they go through a
  shared scratch of ``partials = 2^bits`` slots per kept element, after a barrier;
* threads that differ only in bits the layout does not use, or in replica bits, hold the same
  values: only the one with those bits (and the reduced lane bits) zero writes memory
  (`writer_mask`).

Everything here is Python over integers (no IR), so the plan is checked directly by tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.layout.partition import RegisterPartition
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.layout import Iter, TileLayout, row_major_strides

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

WARP_BITS = 5

AXIS_BITS: dict[str, tuple[int, int | None]] = {
    "laneid": (0, 5), "tx": (0, None), "warpid": (5, None), "tid_in_wg": (0, 7),
    "wid_in_wg": (5, 2), "wgid": (7, None)}
"""Thread axis -> (its first bit in ``threadIdx.x``, its width in bits; None: to the block's
end), for 1-D blocks (TIRx's layout thread axes)."""

SCOPE_THREADS = {ExecScope.THREAD: 1, ExecScope.WARP: 32, ExecScope.WARPGROUP: 128}


class PlanError(ValueError):
    """A distribution this plan cannot reduce (the variant declines with the message)."""


def log2_exact(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise PlanError(f"{what} is {n}, not a power of two")
    return n.bit_length() - 1


def scope_bits(scope: ExecScope, block_threads: int) -> int:
    """The bits of ``threadIdx.x`` that number the threads of one instance of ``scope``."""
    return log2_exact(SCOPE_THREADS.get(scope, block_threads), f"the {scope.value} scope's "
                                                                f"thread count")


@dataclass(frozen=True)
class Field:
    """Bits ``[lo, lo + bits)`` of ``threadIdx.x`` times ``weight`` add to coordinate ``dim``."""

    lo: int
    bits: int
    dim: int
    weight: int

    def bit_set(self) -> set[int]:
        return set(range(self.lo, self.lo + self.bits))

    def value(self, tx: int | np.ndarray) -> int | np.ndarray:
        return ((tx >> self.lo) & ((1 << self.bits) - 1)) * self.weight


def axis_bits(axis: str, stride: int, extent: int, block_bits: int) -> tuple[int, int]:
    if axis not in AXIS_BITS:
        raise PlanError(f"layout axis '{axis}' is not a thread axis of a 1-D block")
    base, width = AXIS_BITS[axis]
    width = block_bits - base if width is None else width
    s = log2_exact(stride, f"the stride of thread axis {axis}")
    k = log2_exact(extent, f"the extent of thread axis {axis}")
    if s + k > width:
        raise PlanError(f"the layout reads {axis} digits past the axis's {width} bits")
    return base + s, k


def thread_fields(part: RegisterPartition, block_bits: int) -> tuple[Field, ...]:
    """The partition's thread digits as bit fields of ``threadIdx.x``."""
    if any(ax not in ("m",) and off for ax, off in part.layout.offset):
        raise PlanError("thread-axis offsets in the layout are not supported by the reduction")
    fields = []
    for it in part.thread_digits():
        lo, bits = axis_bits(it.axis, it.stride, it.extent, block_bits)
        fields.append(Field(lo, bits, it.dim, it.weight))
    return tuple(fields)


class ReductionPlan:
    """The plan of one reduction of a tile of ``shape`` over ``axes``, distributed by ``part``
    over ``nbits`` bits of ``threadIdx.x`` (module docstring)."""

    def __init__(self, part: RegisterPartition, axes: Sequence[int], nbits: int,
                 block_bits: int):
        self.part = part
        self.shape = tuple(part.shape)
        self.axes = tuple(axes)
        self.nbits = nbits
        self.fields = thread_fields(part, block_bits)
        used: set[int] = set()
        for f in self.fields:
            if f.bit_set() & used:
                raise PlanError("two thread digits of the layout read the same bit")
            used |= f.bit_set()
        if any(b >= nbits for b in used):
            raise PlanError(f"the layout spreads the tile over more threads than one "
                            f"instance of the scope has ({1 << nbits})")
        reduced = {b for f in self.fields if f.dim in self.axes for b in f.bit_set()}
        self.lane_bits = sorted(b for b in reduced if b < WARP_BITS)
        self.warp_bits = sorted(b for b in reduced if b >= WARP_BITS)
        self.replica_bits = sorted(set(range(nbits)) - used)
        self.kept_dims = tuple(d for d in range(len(self.shape)) if d not in self.axes)
        self.kept_shape = tuple(self.shape[d] for d in self.kept_dims)
        self.kept_strides = row_major_strides(self.kept_shape) if self.kept_shape else []
        self.keys: dict[int, list[int]] = {}
        self.key_coords: dict[int, tuple[int, ...]] = {}
        for r in part.registers():
            coord = part.reg_coords(r)
            key = self.key_flat(coord)
            self.keys.setdefault(key, []).append(r)
            self.key_coords[key] = tuple(coord[d] for d in self.kept_dims)

    # ---- sizes ----
    @property
    def kept_size(self) -> int:
        return math.prod(self.kept_shape)

    @property
    def partials(self) -> int:
        return 1 << len(self.warp_bits)

    @property
    def writer_mask(self) -> int:
        """Bits that must be zero in the thread that writes a row's result."""
        return sum(1 << b for b in (*self.lane_bits, *self.replica_bits))

    def warp_runs(self) -> list[tuple[int, int]]:
        """The reduced warp bits as runs ``(lo, bits)`` of consecutive bits, low first (the
        partial index is their concatenation)."""
        runs: list[tuple[int, int]] = []
        for b in self.warp_bits:
            if runs and runs[-1][0] + runs[-1][1] == b:
                runs[-1] = (runs[-1][0], runs[-1][1] + 1)
            else:
                runs.append((b, 1))
        return runs

    # ---- coordinates ----
    def key_flat(self, coord: Sequence[int]) -> int:
        """The row-major kept index of a coordinate's kept part."""
        return sum(coord[d] * s for d, s in zip(self.kept_dims, self.kept_strides))

    def thread_kept_flat(self, tx: np.ndarray) -> np.ndarray:
        """The kept index a thread adds to its keys (numpy over ``tx``)."""
        out = np.zeros_like(tx)
        for f in self.fields:
            if f.dim in self.kept_dims:
                out = out + f.value(tx) * self.kept_strides[self.kept_dims.index(f.dim)]
        return out

    def direct_keys(self, dst_flat: np.ndarray) -> list[int] | None:
        """For a destination register tile whose register ``j`` holds kept index
        ``dst_flat[t, j]`` in thread ``t`` (every thread of the scope): the key each register
        reads in the same thread, when that key is the same for every thread and the thread
        holds it (no data has to move between threads); else None."""
        tx = np.arange(dst_flat.shape[0], dtype=np.int64)
        rel = dst_flat - self.thread_kept_flat(tx)[:, None]
        if rel.size and not (rel == rel[:1]).all():
            return None
        keys = [int(k) for k in rel[0]] if rel.size else []
        return keys if all(k in self.keys for k in keys) else None


# --- the spread of a memory tile over the scope's threads ------------------------------------------


def _twos(n: int) -> int:
    """How many times 2 divides ``n``."""
    return (n & -n).bit_length() - 1 if n else 0


def memory_spread(shape: Sequence[int], axes: Sequence[int], nbits: int, axis: str | None,
                  vec: int = 1) -> TileLayout:
    """How the threads of a scope share out a memory tile they reduce: ``vec`` consecutive
    elements of the innermost dim per thread, then the low (lane) bits along the innermost dim
    (consecutive lanes read consecutive addresses: no bank conflict, coalesced), then the other
    bits on kept dims, inner first (rows to warps: no partial results to exchange), then on
    reduced dims; the rest of each dim in registers. Bits no dim can take are replicas."""
    rank = len(shape)
    parts: list[list[tuple[str, int, int]]] = [[] for _ in shape]  # inner first: (kind, n, lo)
    rest = list(shape)
    inner = max((d for d in range(rank) if shape[d] > 1), default=rank - 1)
    if vec > 1:
        parts[inner].append(("m", vec, 0))
        rest[inner] //= vec
    bit = 0

    def take(d: int, want: int) -> None:
        nonlocal bit
        k = min(want, _twos(rest[d]))
        if k > 0 and axis is not None:
            parts[d].append(("t", 1 << k, bit))
            rest[d] >>= k
            bit += k

    take(inner, min(WARP_BITS, nbits))
    order = [d for d in reversed(range(rank)) if d not in axes] + \
            [d for d in reversed(range(rank)) if d in axes]
    for d in order:
        take(d, nbits - bit)
    for d in range(rank):
        if rest[d] > 1:
            parts[d].append(("m", rest[d], 0))
    flat = [p for d in range(rank) for p in reversed(parts[d])]  # outer first
    m_iters = [p for p in flat if p[0] == "m"]
    m_strides = row_major_strides([p[1] for p in m_iters])
    shard, k = [], 0
    for kind, n, lo in flat:
        if kind == "m":
            shard.append(Iter(n, m_strides[k]))
            k += 1
        else:
            shard.append(Iter(n, 1 << lo, axis))
    return TileLayout(tuple(shard) or (Iter(1, 1),))
