"""The SIMT interpreter's memories: global, shared (per CTA) and their addresses.

* **Global** memory is one flat address space. Every kernel buffer (of every simulated PE) is a
  byte array placed at a `GLOBAL_BASE`-relative address, 256-byte aligned, with an unmapped gap
  of at least 256 bytes after it, so an access just past a buffer is an error, never a neighbour.
  ``cuda.address`` of a global buffer is that base plus the element's byte offset (i64, generic:
  the global window is the identity of the generic one).
* **Shared** memory is an arena per CTA (``W`` rows of one ``(W, S)`` byte array): the static
  ``cuda.shared_alloc`` arrays in program order, each at its alignment, then the dynamic arena
  (``cuda.dynamic_shared`` views; 1024-byte aligned, as large as the launch declares). An i32
  shared-window address is a byte offset in the arena of the lane's own CTA; a
  ``shared::cluster`` address of CTA rank r of the cluster is ``(r + 1) * CLUSTER_WINDOW +
  offset`` (what ``mapa`` returns; a shared::cta address names the lane's own CTA there too); a
  generic (i64) address of shared memory is ``SHARED_GENERIC + offset``.
* Fresh shared memory is all-ones bytes: NaN in every float type, -1 in every integer type, so
  a read before a write shows. `shared_name` names a shared byte in messages (its static array
  and element).

Every access is checked, with a located error naming the threads: inside a mapped buffer (the
message names the nearest one), naturally aligned to its size (a 16-byte vector access on a
16-byte boundary), and shared accesses within the CTA's arena. Shared accesses are reported to
the observers (race check, bank conflicts, statistics): ``on_shared_access(ctx, kind, cta,
offsets, nbytes, lanes)``.

Atomics (`Memory.atomic`) are performed in lane order, deterministically: lanes that hit the
same address see each other's updates in that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


GLOBAL_BASE = 0x7F00_0000_0000
GLOBAL_ALIGN = 256
SHARED_GENERIC = 0x0000_7E00_0000_0000
CLUSTER_WINDOW = 1 << 24
DYNAMIC_ALIGN = 1024
FRESH_BYTE = 0xFF

GLOBAL, SHARED, CLUSTER, GENERIC = "global", "shared", "shared::cluster", "generic"


def _round_up(n: int, align: int) -> int:
    return -(-n // align) * align


@dataclass
class Allocation:
    """One mapped global buffer: ``data`` (uint8, padded to 16 bytes) at address ``base``."""

    name: str
    base: int
    nbytes: int
    data: np.ndarray
    pe: int = 0
    _typed: dict = field(default_factory=dict, repr=False)

    def typed(self, dtype: np.dtype) -> np.ndarray:
        view = self._typed.get(dtype)
        if view is None:
            usable = len(self.data) - len(self.data) % dtype.itemsize
            view = self._typed[dtype] = self.data[:usable].view(dtype)
        return view


@dataclass
class BufferRef:
    """The run-time value of a ``!tirx.buffer`` at the CUDA level.

    ``space`` is ``global`` or ``shared``; ``bases`` the byte address of element 0 per PE
    (global) or its byte offset in every CTA's arena (shared, one entry); ``dtype``/``shape``
    the element type and logical shape (row-major)."""

    space: str
    dtype: np.dtype
    shape: tuple[int, ...]
    bases: np.ndarray
    name: str = ""

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.numel * self.dtype.itemsize

    def address(self, pe: np.ndarray) -> np.ndarray | int:
        """Byte address of element 0 per lane (the lane's PE's copy of a global buffer), or one
        int when every lane has the same."""
        if len(self.bases) == 1:
            return int(self.bases[0])
        return self.bases[pe]


def shared_name(engine, cta: int, offset: int) -> str:
    """``shared offset 2048 (%bar[0]) of CTA (0,0,0)``: the static array holding ``offset``."""
    text = f"shared offset {offset}"
    for op, ref in getattr(engine, "shared_buffers", {}).items():
        base = int(ref.bases[0])
        if base <= offset < base + ref.nbytes:
            hint = op.results[0].name_hint
            name = f"%{hint}" if hint else op.name
            index = (offset - base) // ref.dtype.itemsize
            text += f" ({name}[{index}])"
            break
    return f"{text} of {engine.wave.cta_name(cta)}"


class Memory:
    """Global allocations, the shared arenas of the wave's CTAs, and the access checks."""

    def __init__(self, n_ctas: int = 0, shared_bytes: int = 0):
        self.allocations: list[Allocation] = []
        self._bases = np.zeros(0, dtype=np.int64)
        self._ends = np.zeros(0, dtype=np.int64)
        self._next = GLOBAL_BASE
        self.observers: list[Any] = []
        self.version = 0
        """Counts stores and atomics (a poll that sees no change since its last poll is idle)."""
        self.reset_shared(n_ctas, shared_bytes)

    # ---- global ----
    def map_global(self, name: str, data: np.ndarray, pe: int = 0) -> Allocation:
        """Map a copy of ``data``'s bytes; returns its allocation."""
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        nbytes = raw.size
        buf = np.full(_round_up(max(nbytes, 1), 16), FRESH_BYTE, dtype=np.uint8)
        buf[:nbytes] = raw
        alloc = Allocation(name, self._next, nbytes, buf, pe)
        self._next = _round_up(self._next + nbytes + GLOBAL_ALIGN, GLOBAL_ALIGN)
        self.allocations.append(alloc)
        self._bases = np.array([a.base for a in self.allocations], dtype=np.int64)
        self._ends = np.array([a.base + a.nbytes for a in self.allocations], dtype=np.int64)
        return alloc

    def read_back(self, alloc: Allocation, out: np.ndarray) -> None:
        """Copy an allocation's bytes into ``out`` (an output array of its size)."""
        out.reshape(-1).view(np.uint8)[:] = alloc.data[:alloc.nbytes]

    def _global_groups(self, ctx, addr: np.ndarray, nbytes: int, lanes: np.ndarray):
        """[(selection of the lanes, allocation)] after the bounds check; the selection is
        ``slice(None)`` when every lane hits one allocation (the usual case)."""
        k = self._global_targets(ctx, addr, nbytes, lanes)
        first = k[0]
        if (k == first).all():
            return [(slice(None), self.allocations[int(first)])]
        return [(k == kk, self.allocations[int(kk)]) for kk in np.unique(k)]

    def _global_targets(self, ctx, addr: np.ndarray, nbytes: int, lanes: np.ndarray):
        """Allocation index per lane, after the bounds check."""
        k = np.searchsorted(self._bases, addr, side="right") - 1
        kk = np.maximum(k, 0)
        ok = (k >= 0) & (addr + nbytes <= self._ends[kk]) if len(self._bases) else \
            np.zeros(len(addr), dtype=bool)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ctx.error(f"out-of-bounds global access: {self._where(int(addr[bad]), nbytes)}"
                            f", by {ctx.wave.describe(lanes[~ok])}",
                            hint="check the index arithmetic against the buffer's size")
        return k

    def _where(self, address: int, nbytes: int) -> str:
        if not self.allocations:
            return f"{nbytes} bytes at 0x{address:x} (no global buffer is mapped)"
        k = int(np.searchsorted(self._bases, address, side="right")) - 1
        if k < 0:
            a = self.allocations[0]
            return (f"{nbytes} bytes at 0x{address:x}, {a.base - address} bytes before "
                    f"{a.name} ({a.nbytes} bytes at 0x{a.base:x})")
        a = self.allocations[k]
        past = address + nbytes - (a.base + a.nbytes)
        return (f"{nbytes} bytes at 0x{address:x}, byte offset {address - a.base} of {a.name} "
                f"({a.nbytes} bytes), {past} bytes past its end")

    # ---- shared ----
    def reset_shared(self, n_ctas: int, shared_bytes: int) -> None:
        """Fresh arenas (all-ones bytes) for a new wave."""
        self.shared_bytes = shared_bytes
        self._ranks = None
        self.arena = np.full((n_ctas, _round_up(max(shared_bytes, 16), 16)), FRESH_BYTE,
                             dtype=np.uint8)
        self._arena_typed: dict[np.dtype, np.ndarray] = {}

    def arena_typed(self, dtype: np.dtype) -> np.ndarray:
        view = self._arena_typed.get(dtype)
        if view is None:
            view = self._arena_typed[dtype] = self.arena.view(dtype)
        return view

    def _shared_targets(self, ctx, space: str, addr: np.ndarray, nbytes: int,
                        lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(CTA in the wave, byte offset) per lane of a shared, cluster or generic address."""
        cta = ctx.wave.cta[lanes]
        offset = addr
        if space == GENERIC:
            offset = addr - SHARED_GENERIC
        elif space == CLUSTER:
            rank = addr // CLUSTER_WINDOW
            offset = addr % CLUSTER_WINDOW
            remote = rank > 0
            if remote.any():
                cta = cta.copy()
                cta[remote] = self._cta_of_rank(ctx, lanes[remote], rank[remote] - 1)
        bad = (offset < 0) | (offset + nbytes > self.shared_bytes)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ctx.error(
                f"out-of-bounds shared access: {nbytes} bytes at shared offset {int(offset[i])}"
                f", but the CTA has {self.shared_bytes} bytes of shared memory "
                f"(static arrays + the dynamic arena the launch declared), by "
                f"{ctx.wave.describe(lanes[bad])}",
                hint="check the index arithmetic, or declare more dynamic shared memory")
        return cta, offset

    def _cta_of_rank(self, ctx, lanes: np.ndarray, rank: np.ndarray) -> np.ndarray:
        wave = ctx.wave
        if wave.cluster_dim is None:
            raise ctx.error("a shared::cluster address of another CTA in a launch without "
                            "clusters", hint="add `cluster [..]` to the kernel")
        size = int(np.prod(wave.cluster_dim))
        if (rank >= size).any():
            raise ctx.error(f"a shared::cluster address names CTA rank {int(rank.max())}, but "
                            f"the cluster has {size} CTAs")
        return self._cta_table(wave)[wave.cta[lanes], rank]

    def _cta_table(self, wave) -> np.ndarray:
        """(W, cluster size): the wave CTA of each rank of each CTA's cluster."""
        table = getattr(self, "_ranks", None)
        if table is None or table.shape[0] != wave.W:
            heads = np.arange(wave.W) * wave.T
            cluster_key = {}
            for c, lane in enumerate(heads):
                key = (tuple(int(v) for v in wave.cluster_idx[lane]), int(wave.pe[lane]))
                cluster_key.setdefault(key, {})[int(wave.cluster_rank[lane])] = c
            size = int(np.prod(wave.cluster_dim))
            table = np.zeros((wave.W, size), dtype=np.int64)
            for c, lane in enumerate(heads):
                key = (tuple(int(v) for v in wave.cluster_idx[lane]), int(wave.pe[lane]))
                members = cluster_key[key]
                table[c] = [members[r] for r in range(size)]
            self._ranks = table
        return table

    # ---- accesses ----
    def _check_alignment(self, ctx, addr: np.ndarray, nbytes: int, lanes: np.ndarray) -> None:
        bad = (addr & (nbytes - 1)) != 0 if nbytes & (nbytes - 1) == 0 else addr % nbytes != 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ctx.error(
                f"misaligned {nbytes}-byte access at address 0x{int(addr[i]):x} (a {nbytes}-byte "
                f"access must be {nbytes}-byte aligned), by {ctx.wave.describe(lanes[bad])}",
                hint="align the index to the access size")

    def _space_of(self, space: str, addr: np.ndarray) -> str:
        if space != GENERIC:
            return space
        if (addr >= GLOBAL_BASE).all():
            return GLOBAL
        return GENERIC

    def load(self, ctx, space: str, addr: np.ndarray, dtype: np.dtype, count: int = 1,
             lanes: np.ndarray | None = None) -> np.ndarray:
        """``count`` consecutive elements of ``dtype`` at each active lane's address, as an
        ``(L, count)`` array (inactive lanes read zeros)."""
        out = np.zeros((ctx.wave.L, count), dtype=dtype)
        lanes = ctx.lanes if lanes is None else lanes
        if not len(lanes):
            return out
        a = addr[lanes].astype(np.int64, copy=False)
        nbytes = dtype.itemsize * count
        self._check_alignment(ctx, a, nbytes, lanes)
        space = self._space_of(space, a)
        span = np.arange(count)
        if space == GLOBAL:
            for sel, alloc in self._global_groups(ctx, a, nbytes, lanes):
                elem = (a[sel] - alloc.base) // dtype.itemsize
                typed = alloc.typed(dtype)
                out[lanes[sel]] = typed[elem, None] if count == 1 else \
                    typed[elem[:, None] + span]
            return out
        cta, offset = self._shared_targets(ctx, space, a, nbytes, lanes)
        self._notify(ctx, "read", cta, offset, nbytes, lanes)
        elem = offset // dtype.itemsize
        typed = self.arena_typed(dtype)
        out[lanes] = typed[cta, elem, None] if count == 1 else \
            typed[cta[:, None], elem[:, None] + span]
        return out

    def store(self, ctx, space: str, addr: np.ndarray, values: np.ndarray,
              lanes: np.ndarray | None = None) -> None:
        """Write each active lane's ``values`` (``(L, count)``, already of the memory's dtype)
        at its address."""
        lanes = ctx.lanes if lanes is None else lanes
        if not len(lanes):
            return
        self.version += 1
        dtype = values.dtype
        count = values.shape[1]
        a = addr[lanes].astype(np.int64, copy=False)
        nbytes = dtype.itemsize * count
        self._check_alignment(ctx, a, nbytes, lanes)
        space = self._space_of(space, a)
        span = np.arange(count)
        v = values[lanes]
        if space == GLOBAL:
            for sel, alloc in self._global_groups(ctx, a, nbytes, lanes):
                elem = (a[sel] - alloc.base) // dtype.itemsize
                typed = alloc.typed(dtype)
                if count == 1:
                    typed[elem] = v[sel, 0]
                else:
                    typed[elem[:, None] + span] = v[sel]
            return
        cta, offset = self._shared_targets(ctx, space, a, nbytes, lanes)
        self._notify(ctx, "write", cta, offset, nbytes, lanes)
        elem = offset // dtype.itemsize
        typed = self.arena_typed(dtype)
        if count == 1:
            typed[cta, elem] = v[:, 0]
        else:
            typed[cta[:, None], elem[:, None] + span] = v

    def atomic(self, ctx, space: str, addr: np.ndarray, dtype: np.dtype,
               update: Callable[[np.ndarray, int], np.ndarray],
               lanes: np.ndarray | None = None) -> np.ndarray:
        """Read-modify-write one element per active lane, in lane order: ``update(old, sel)``
        gets the old values of the lanes ``lanes[sel]`` (no two at one address) and returns
        their new values. Returns the old value per lane (``(L,)``)."""
        out = np.zeros(ctx.wave.L, dtype=dtype)
        lanes = ctx.lanes if lanes is None else lanes
        if not len(lanes):
            return out
        self.version += 1
        a = addr[lanes].astype(np.int64, copy=False)
        nbytes = dtype.itemsize
        self._check_alignment(ctx, a, nbytes, lanes)
        space = self._space_of(space, a)
        if space == GLOBAL:
            k = self._global_targets(ctx, a, nbytes, lanes)
            keys = k
            views = {int(kk): self.allocations[int(kk)].typed(dtype) for kk in np.unique(k)}
            elems = np.empty_like(a)
            for kk in views:
                sel = k == kk
                elems[sel] = (a[sel] - self.allocations[kk].base) // nbytes
        else:
            cta, offset = self._shared_targets(ctx, space, a, nbytes, lanes)
            self._notify(ctx, "atomic", cta, offset, nbytes, lanes)
            keys = cta
            table = self.arena_typed(dtype)
            views = {int(c): table[int(c)] for c in np.unique(cta)}
            elems = offset // nbytes
        # rounds: the r-th lane (in lane order) at each address goes in round r
        combined = keys.astype(np.int64) * (1 << 40) + elems
        order = np.argsort(combined, kind="stable")
        sorted_keys = combined[order]
        first = np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]
        starts = np.flatnonzero(first)
        group_start = starts[np.cumsum(first) - 1]
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order)) - group_start
        for r in range(int(rank.max()) + 1):
            sel = rank == r
            for kk, view in views.items():
                s = sel & (keys == kk)
                if not s.any():
                    continue
                old = view[elems[s]].copy()
                out[lanes[s]] = old
                view[elems[s]] = update(old, np.flatnonzero(s))
        return out

    def _notify(self, ctx, kind: str, cta: np.ndarray, offset: np.ndarray, nbytes: int,
                lanes: np.ndarray) -> None:
        for obs in self.observers:
            obs.on_shared_access(ctx, kind, cta, offset, nbytes, lanes)

