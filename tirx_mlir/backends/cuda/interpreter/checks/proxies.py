"""The proxy check: shared bytes written through the generic proxy and then read through the
async proxy need a ``fence.proxy.async`` between the two.

Facts of the PTX ISA (https://docs.nvidia.com/cuda/parallel-thread-execution/):

* "Memory Consistency Model", "Proxies": accesses to one location through different proxies
  need a proxy fence on the causality path between them ("Proxy-preserved base causality
  order").
* The generic proxy: ordinary loads and stores (``st.shared``, ``stmatrix``, atomics) and
  ``cp.async``, which "is treated as a weak memory operation performed in the generic proxy"
  ("Data Movement and Conversion Instructions: cp.async").
* The async proxy: ``cp{.reduce}.async.bulk{.tensor}`` ("Async Proxy": "Accessing the same
  memory location across multiple proxies needs a cross-proxy fence. For the async proxy,
  fence.proxy.async should be used") and ``wgmma.mma_async``, whose shared-memory matrices
  are read through descriptors ("wgmma.fence": "An async proxy fence must be used to establish
  an ordering between prior writes to shared memory matrices and subsequent reads of the same
  matrices in a wgmma.mma_async instruction").
* The other direction needs no fence once the copy is awaited: "The completion of a
  cp{.reduce}.async.bulk operation is followed by an implicit generic-async proxy fence", so a
  TMA load completed through its mbarrier is visible to generic reads.

The model, per wave (`ProxyCheck`): every shared byte keeps its last generic-proxy write (the
writing thread, the op, and the fence clock then); a TMA or bulk copy landing in a byte
clears it (the byte's last write is the async proxy's). ``fence.proxy.async`` (no state space,
``.shared::cta`` or ``.shared::cluster``; ``.global`` orders no shared memory) advances a
clock and stamps the fencing threads. An async-proxy read of a byte is allowed when the
byte's writer or every reading thread (the issuing thread of a bulk copy, the 128 threads of a
wgmma's warpgroup) fenced after the write, in the interpreter's order of execution; otherwise
it is a located error naming the read op, the write op and its thread, and the byte. A TMA or
bulk load issued over such a byte is the same error (two writes through two proxies, unordered
without the fence). A fence on the causality path by a third thread, a fence placed after the
barrier that orders it before the access (a race on the hardware, which the interpreter's
lockstep execution may hide), and a generic access after an async-proxy one (ordered by the
copy's wait, which async_state.py checks) are not modelled.

The check costs two scatters (the write, its op) per shared store and is made only for kernels
that have an async-proxy access of shared memory (`ASYNC_ACCESS_ROWS`).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.memory import shared_name
from tirx_mlir.diagnostics import format_location

KEY = "proxies"

ASYNC_ACCESS_ROWS = ("wgmma_mma_async_ss", "wgmma_mma_async_rs", "cp_async_bulk_s2g",
                     "cp_async_bulk_s2c", "cp_async_bulk_tensor_s2g",
                     "cp_reduce_async_bulk_tensor", "cp_async_bulk_g2s",
                     "cp_async_bulk_g2s_multicast", "cp_async_bulk_tensor_g2s",
                     "cp_async_bulk_tensor_g2s_multicast")
"""The ptx rows that access shared memory through the async proxy (wgmma's operands, the bulk
and TMA copies' shared sources and destinations)."""

SHARED_FENCE_SPACES = (None, "shared::cta", "shared::cluster")
"""The state spaces of a ``fence.proxy.async`` that order shared memory."""

FENCE_HINT = ("add ptx.fence_proxy_async (fence.proxy.async.shared::cta) between them: in the "
              "writing threads, before the barrier that orders their writes before this op, or "
              "in the threads issuing this op, after that barrier")

_LANE_BITS = 32
_LANE_MASK = (1 << _LANE_BITS) - 1


class ProxyCheck:
    """The generic-proxy writes of a wave's shared arenas not yet fenced (module docstring)."""

    def __init__(self, engine) -> None:
        self.wave = engine.wave
        self.arena = engine.mem.arena.shape[1]
        self.clock = 0
        self.fenced = np.zeros(self.wave.L, dtype=np.int32)
        """Per lane: the clock of its last shared-memory proxy fence (0: none)."""
        self._writes = np.zeros(0, dtype=np.int64)  # allocated on the first write
        """Per byte of the arenas: its last generic write as ``clock << 32 | (lane + 1)`` (0:
        none, or an async-proxy write since), the fence clock at the write."""
        self._write_sites = np.zeros(0, dtype=np.int32)
        """Per byte: the op of that write (an index into ``_sites``). (Two plain arrays: a
        structured array's scatter is several times slower.)"""
        self._sites: list[object] = []
        self._site_ids: dict[int, int] = {}

    # ---- generic writes and fences ------------------------------------------------------------
    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        if kind == "read":
            return
        base = np.asarray(cta, np.int64) * self.arena + np.asarray(offsets, np.int64)
        if nbytes > 1:  # flat, as 2-D fancy indexing with a broadcast lane is ~1.6x slower
            base = (base[:, None] + np.arange(nbytes)).ravel()
            lanes = np.repeat(lanes, nbytes)
        self._record(base, lanes, ctx.op)

    def on_async_write(self, ctx, cta, offsets, lanes, site) -> None:
        """A ``cp.async`` landing (one byte per entry): a generic-proxy write of its issuing
        threads ``lanes``."""
        self._record(np.asarray(cta, np.int64) * self.arena + np.asarray(offsets, np.int64),
                     lanes, site)

    def on_async_proxy_write(self, cta, offsets) -> None:
        """A TMA or bulk copy landing: the bytes' last write is the async proxy's."""
        if self._writes.size:
            flat = np.asarray(cta, np.int64) * self.arena + np.asarray(offsets, np.int64)
            self._writes[flat] = 0

    def on_barrier(self, ctx, scope, lanes) -> None:
        pass

    def fence(self, lanes: np.ndarray) -> None:
        """``lanes`` executed a proxy fence that orders shared memory."""
        self.clock += 1
        self.fenced[lanes] = self.clock

    def _record(self, flat: np.ndarray, lanes: np.ndarray, site: object) -> None:
        if not self._writes.size:
            self._writes = np.zeros(self.wave.W * self.arena, dtype=np.int64)
            self._write_sites = np.zeros(self.wave.W * self.arena, dtype=np.int32)
        self._writes[flat] = np.asarray(lanes, np.int64) + (1 + (self.clock << _LANE_BITS))
        self._write_sites[flat] = self._site_id(site)

    def _site_id(self, site: object) -> int:
        key = id(site)
        found = self._site_ids.get(key)
        if found is None:
            found = self._site_ids[key] = len(self._sites)
            self._sites.append(site)
        return found

    # ---- async-proxy accesses ---------------------------------------------------------------
    def check_read(self, ctx, cta: int, offsets: np.ndarray, nbytes: int,
                   readers: np.ndarray) -> None:
        """Raise if the async-proxy read of ``nbytes`` at each of ``offsets`` (in CTA ``cta``'s
        arena) by the threads ``readers`` (a bulk copy's issuing thread, a wgmma's warpgroup)
        sees a generic write that no proxy fence of its writer, or of every reader, followed."""
        if not self._writes.size:
            return
        flat = cta * self.arena + np.asarray(offsets, np.int64).reshape(-1)
        if nbytes > 1:
            flat = (flat[:, None] + np.arange(nbytes)).ravel()
        self._check(ctx, "reads", flat, int(self.fenced[readers].min()), lambda i: readers)

    def check_write(self, ctx, cta: np.ndarray, offsets: np.ndarray,
                    issuers: np.ndarray) -> None:
        """Raise if an async-proxy write (a TMA or bulk load; byte i issued by thread
        ``issuers[i]``) overwrites a generic write that no proxy fence of its writer or of the
        issuing thread followed: the two writes are unordered."""
        if not self._writes.size:
            return
        flat = np.asarray(cta, np.int64) * self.arena + np.asarray(offsets, np.int64)
        self._check(ctx, "writes", flat, self.fenced[issuers], lambda i: [int(issuers[i])])

    def _check(self, ctx, verb: str, flat: np.ndarray, accessor_fence, lanes_of) -> None:
        rec = self._writes[flat]
        live = rec != 0
        if not live.any():
            return
        writer = (rec & _LANE_MASK) - 1
        stamp = rec >> _LANE_BITS
        unfenced = live & (self.fenced[np.maximum(writer, 0)] <= stamp) & \
            (accessor_fence <= stamp)
        if not unfenced.any():
            return
        i = int(np.flatnonzero(unfenced)[0])
        raise ctx.error(self._message(ctx, verb, int(flat[i]), int(writer[i]),
                                      int(self._write_sites[flat[i]]), int(unfenced.sum())),
                        lanes_of(i), code="proxy", hint=FENCE_HINT)

    def _message(self, ctx, verb: str, flat: int, writer: int, site: int, count: int) -> str:
        cta, offset = divmod(flat, self.arena)
        op = self._sites[site]
        noun = "read" if verb == "reads" else "write"
        more = f" ({count} bytes of this {noun} are unfenced)" if count > 1 else ""
        return (f"{verb} {shared_name(ctx.engine, cta, offset)} through the async proxy, but its "
                f"last write, by the {op.name} at {format_location(op)} in "
                f"{self.wave.thread_name(writer)}, went through the generic proxy, and no "
                f"fence.proxy.async followed it in the writing thread or in every thread "
                f"issuing this op{more}")


def proxy_check(ctx) -> ProxyCheck | None:
    """The wave's proxy check, or None when the kernel has no async-proxy access of shared
    memory."""
    return ctx.state.ext.get(KEY)


def check_async_read(ctx, cta: int, offsets: np.ndarray, nbytes: int,
                     readers: np.ndarray) -> None:
    """`ProxyCheck.check_read` when the wave has a proxy check."""
    check = ctx.state.ext.get(KEY)
    if check is not None:
        check.check_read(ctx, cta, offsets, nbytes, readers)


def check_async_write(ctx, cta: np.ndarray, offsets: np.ndarray, issuers: np.ndarray) -> None:
    """`ProxyCheck.check_write` when the wave has a proxy check."""
    check = ctx.state.ext.get(KEY)
    if check is not None:
        check.check_write(ctx, cta, offsets, issuers)


_READERS_OF: dict[int, tuple[object, bool]] = {}
"""id(kernel) -> (kernel, whether it has an async-proxy access): a launch of several waves walks
its kernel once."""
_CACHED_KERNELS = 64


def _has_async_accesses(kernel) -> bool:
    from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW

    entry = _READERS_OF.get(id(kernel))
    if entry is None or entry[0] is not kernel:
        if len(_READERS_OF) >= _CACHED_KERNELS:
            _READERS_OF.clear()
        types = tuple(OPS_BY_ROW[r] for r in ASYNC_ACCESS_ROWS)
        entry = _READERS_OF[id(kernel)] = (
            kernel, any(isinstance(op, types) for op in kernel.walk()))
    return entry[1]


def proxy_observer(options, engine) -> ProxyCheck | None:
    """The proxy check of a wave (also in ``engine.state.ext[KEY]``), when the kernel accesses
    shared memory through the async proxy."""
    kernel = getattr(engine, "kernel", None)
    if kernel is None or engine.mem.shared_bytes == 0 or not _has_async_accesses(kernel):
        return None
    check = engine.state.ext[KEY] = ProxyCheck(engine)
    return check
