"""The shared bytes a ``wgmma.mma_async`` reads stay its own until the ``wgmma.wait_group``
that retires its group, and a write into them must be ordered after that wait.

The PTX ISA ("wgmma.mma_async"): the shared matrices may be read at any time until the
``wgmma.wait_group`` that retires the group completes; writing them before is a race. The
interpreter computes a wgmma when it issues (lane_impls.py), so it checks the order instead of
reading late: a write into a byte a wgmma group read — a plain store or atomic, or the issue of
a copy into it (TMA, bulk, ``cp.async``: the copy may land at once) — is a located ``[async]``
error unless the writing thread *knows* that group retired. Knowledge is happens-before, kept
as counts:

* groups are numbered per warpgroup in commit order; ``wgmma.wait_group N`` retires all but
  the N newest, so a warpgroup's threads know its first ``commits - N`` groups retired;
* a thread knows, per warpgroup of its cluster, how many of its groups retired
  (``known[lane, rank * warpgroups + warpgroup]``);
* an ``mbarrier`` arrival carries the arriving thread's knowledge *as it arrives* into the
  phase it counts in (merged over the phase's arrivals); a thread whose test/try_wait finds the
  phase complete takes it over: a consumer that arrives on a ring's ``empty`` barrier before
  its ``wait_group`` tells the producer nothing about that group, however late the producer
  runs;
* a CTA, named, cluster or grid barrier merges the knowledge of the threads it releases (per
  CTA, cluster, or all of them), ``__syncwarp`` per warp; the per-lane ``mbarrier`` ordering
  the memory observers see (``on_barrier(..., "mbarrier", ...)``) is not used: it merges the
  arrivers' knowledge at the wait, not at their arrival.

Per shared byte and warpgroup of the CTA, the number of the last group that read it (+1; 0:
never) is kept (`WgmmaReads.reads`, allocated per CTA at its first wgmma), so a kernel without
wgmma pays nothing and a later read subsumes an earlier one. Not modelled: knowledge passed
through memory (flags polled with ld.acquire) or through a ``cp.async.mbarrier.arrive``; both
only make the check stricter.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.memory import shared_name
from tirx_mlir.diagnostics import format_location

KEY = "wgmma_reads"
WARPGROUP = 128


class WgmmaReads:
    """The retire knowledge and the wgmma-read bytes of one wave (module docstring)."""

    def __init__(self, engine):
        wave = engine.wave
        self.wave = wave
        self.shared_bytes = engine.mem.shared_bytes
        self.per_cta = -(-wave.T // WARPGROUP)
        ranks = getattr(wave, "cluster_rank", None)
        self.rank = np.zeros(wave.L, np.int64) if ranks is None else np.asarray(ranks, np.int64)
        size = 1 if wave.cluster_dim is None else int(np.prod(wave.cluster_dim))
        self.known = np.zeros((wave.L, size * self.per_cta), np.int64)
        self.reads: dict[int, np.ndarray] = {}
        """CTA -> ``(shared bytes, warpgroups)``: the last reading group's number + 1."""
        self.commits: dict[int, int] = {}
        """Warpgroup (numbered across the wave) -> groups committed."""
        self.ops: dict[tuple[int, int], object] = {}
        """(warpgroup, group) -> the first mma_async of the group."""
        self.phases: dict[tuple[int, int], dict[int, np.ndarray]] = {}
        """mbarrier (CTA, offset) -> phase -> the knowledge its arrivals carried."""

    def column(self, lane: int) -> int:
        return int(self.rank[lane]) * self.per_cta + int(self.wave.tid[lane]) // WARPGROUP

    # ---- wgmma ----
    def read(self, op, wg: int, lane: int, cta: int, offsets: np.ndarray, nbytes: int) -> None:
        """The warpgroup ``wg`` (its first lane ``lane``) issues ``op`` reading the bytes
        ``offsets .. + nbytes`` of CTA ``cta``, in its open group."""
        group = self.commits.get(wg, 0)
        self.ops.setdefault((wg, group), op)
        table = self.reads.get(cta)
        if table is None:
            table = self.reads[cta] = np.zeros((self.shared_bytes, self.per_cta), np.int32)
        span = (np.asarray(offsets, np.int64).reshape(-1, 1) + np.arange(nbytes)).reshape(-1)
        table[span, int(self.wave.tid[lane]) // WARPGROUP] = group + 1

    def commit(self, wg: int) -> None:
        self.commits[wg] = self.commits.get(wg, 0) + 1

    def wait(self, wg: int, lanes: np.ndarray, keep: int) -> None:
        retired = max(0, self.commits.get(wg, 0) - keep)
        col = self.column(int(lanes[0]))
        self.known[lanes, col] = np.maximum(self.known[lanes, col], retired)

    # ---- ordering ----
    def arrive(self, key: tuple[int, int], phase: int, lane: int) -> None:
        phases = self.phases.setdefault(key, {})
        have = phases.get(phase)
        phases[phase] = self.known[lane].copy() if have is None else \
            np.maximum(have, self.known[lane])
        for old in [p for p in phases if p < phase - 2]:
            del phases[old]

    def acquire(self, key: tuple[int, int], completed: int, lane: int) -> None:
        carried = self.phases.get(key, {}).get(completed)
        if carried is not None:
            self.known[lane] = np.maximum(self.known[lane], carried)

    def join(self, scope: str, lanes: np.ndarray) -> None:
        wave = self.wave
        # a grid barrier orders everything, but ``known``'s columns name warpgroups by their
        # rank in the cluster: only a cluster's (or, without clusters, a CTA's) threads share
        # them, and no thread writes another cluster's shared memory
        if scope == "warp":
            units = wave.warp[lanes]
        elif scope in ("cluster", "grid") and getattr(wave, "cluster_idx", None) is not None:
            idx = wave.cluster_idx[lanes]
            units = idx[:, 0] + 65536 * (idx[:, 1] + 65536 * idx[:, 2])
        else:
            units = wave.cta[lanes]
        for unit in np.unique(units):
            sel = lanes[units == unit]
            self.known[sel] = self.known[sel].max(axis=0)

    # ---- writes ----
    def check_write(self, ctx, cta: np.ndarray, offsets: np.ndarray, lanes: np.ndarray) -> None:
        """Raise if a byte ``(cta[i], offsets[i])`` written by ``lanes[i]`` was read by a wgmma
        group the writer does not know retired."""
        for c in np.unique(cta).tolist():
            table = self.reads.get(int(c))
            if table is None:
                continue
            sel = (cta == c) & (offsets < self.shared_bytes)
            if not sel.any():
                continue
            off, who = offsets[sel], lanes[sel]
            groups = table[off]  # (n, warpgroups)
            # the columns of CTA c's warpgroups (a multicast copy writes a peer's bytes)
            cols = int(self.rank[int(c) * self.wave.T]) * self.per_cta + np.arange(self.per_cta)
            bad = groups > self.known[who[:, None], cols[None, :]]
            if bad.any():
                i, j = np.argwhere(bad)[0]
                self._fail(ctx, int(c), int(off[i]), int(who[i]), int(j), int(groups[i, j]) - 1)

    def _fail(self, ctx, cta: int, offset: int, lane: int, wg_in_cta: int, group: int) -> None:
        wave = self.wave
        first = cta * wave.T + wg_in_cta * WARPGROUP
        wg = first // WARPGROUP
        op = self.ops.get((wg, group))
        what = f"the {op.name} at {format_location(op)}" if op is not None else "a wgmma"
        threads = wave.describe(np.arange(first, min(first + WARPGROUP, (cta + 1) * wave.T)))
        raise ctx.error(
            f"writes {shared_name(ctx.engine, cta, offset)}, which {what} issued by {threads} "
            f"may still be reading: no wgmma.wait_group that retires its group is ordered "
            f"before this write (by a barrier, or an mbarrier phase that warpgroup arrived on "
            f"after the wait)", [lane], code="async",
            hint="release a stage (arrive on its empty mbarrier) only after the "
                 "wgmma.wait_group that retires the wgmma reading it: with wgmma.wait_group 1, "
                 "release the previous K step's stage")


def state(ctx) -> WgmmaReads:
    """The wave's `WgmmaReads`, made at its first wgmma."""
    found = ctx.state.ext.get(KEY)
    if found is None:
        found = ctx.state.ext[KEY] = WgmmaReads(ctx.engine)
    return found


def existing(ctx) -> WgmmaReads | None:
    return ctx.state.ext.get(KEY)


def check_write(ctx, cta: np.ndarray, offsets: np.ndarray, lanes: np.ndarray) -> None:
    """`WgmmaReads.check_write`, when the wave has run a wgmma."""
    found = ctx.state.ext.get(KEY)
    if found is not None:
        found.check_write(ctx, np.asarray(cta, np.int64), np.asarray(offsets, np.int64),
                          np.asarray(lanes, np.int64))


def on_init(ctx, key: tuple[int, int]) -> None:
    """An mbarrier (re)initialised at ``key``: it starts at phase 0 again, so the knowledge the
    phases of an earlier object at the same place carried is dropped."""
    found = ctx.state.ext.get(KEY)
    if found is not None:
        found.phases.pop(key, None)


def on_arrive(ctx, key: tuple[int, int], phase: int, lane: int) -> None:
    found = ctx.state.ext.get(KEY)
    if found is not None and lane >= 0:
        found.arrive(key, phase, lane)


def on_acquire(ctx, key: tuple[int, int], completed: int, lane: int) -> None:
    found = ctx.state.ext.get(KEY)
    if found is not None:
        found.acquire(key, completed, lane)


class WgmmaReadObserver:
    """Checks plain shared writes and merges knowledge at barriers (module docstring)."""

    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        found = ctx.state.ext.get(KEY)
        if found is None or kind == "read":
            return
        span = np.asarray(offsets, np.int64)[:, None] + np.arange(nbytes)
        n = span.shape[1]
        found.check_write(ctx, np.repeat(np.asarray(cta, np.int64), n), span.reshape(-1),
                          np.repeat(np.asarray(lanes, np.int64), n))

    def on_barrier(self, ctx, scope, lanes) -> None:
        found = ctx.state.ext.get(KEY)
        if found is not None and scope != "mbarrier" and len(lanes):
            found.join(scope, np.asarray(lanes, np.int64))


def _observer(options, engine) -> WgmmaReadObserver:
    return WgmmaReadObserver()


def register() -> None:
    from tirx_mlir.backends.cuda.interpreter import executor

    if _observer not in executor.OBSERVERS:
        executor.OBSERVERS.append(_observer)
