"""The synchronisation a warpgroup owes between two of its ``setmaxnreg``.

PTX ISA, "setmaxnreg": the same instruction must be executed by all warps of a warpgroup, and
after executing one, all warps of the warpgroup must synchronise explicitly before executing
a subsequent ``setmaxnreg``. The first half is the collective rule (ptx_registers.py,
`tensor_core.lane_impls.collective_lanes`); this is the second: since the warpgroup's
previous ``setmaxnreg``, each of its warps must have completed either

* a barrier (``bar.sync``/``barrier.sync`` of the CTA or a named barrier, a cluster or grid
  barrier: not ``__syncwarp``, which orders one warp's lanes only), or
* a wait (``mbarrier.test_wait``/``try_wait`` that succeeded) on an mbarrier phase that every
  warp of the warpgroup arrived on after that ``setmaxnreg``: the waiting warp then runs after
  each warp's ``setmaxnreg``, as a barrier would order it (a phase some warp of the
  warpgroup did not arrive on, or arrived on before its ``setmaxnreg``, orders nothing),

else the second one is a located error naming the warpgroup's threads.

`SetmaxnregSync` is a memory observer of one wave (it hears every completed barrier, mbarrier
arrival and successful mbarrier wait), added by the wave's first ``setmaxnreg``: barriers and
arrivals before it do not matter.
"""

from __future__ import annotations

import numpy as np

WARP = 32
_KEY = "setmaxnreg sync"


class SetmaxnregSync:
    """Per wave: how many barriers each warp completed, the counts each warpgroup's warps had
    at its last ``setmaxnreg``, and the mbarrier phases warps arrived on since."""

    def __init__(self, wave) -> None:
        self.wave = wave
        self.warps_per_cta = -(-wave.T // WARP)
        self.barriers = np.zeros(wave.W * self.warps_per_cta, dtype=np.int64)
        self.last: dict[int, np.ndarray] = {}
        """First warp of a warpgroup -> its 4 warps' barrier counts at its last setmaxnreg."""
        self.runs: dict[int, int] = {}
        """First warp of a warpgroup -> how many setmaxnreg it ran."""
        self.arrivals: dict[tuple[int, int], tuple[object, dict[int, int]]] = {}
        """(id of an mbarrier, phase) -> (the mbarrier, kept alive so that its id names no
        later one; warp -> its warpgroup's `runs` when it arrived)."""
        self.waited: dict[int, int] = {}
        """Warp -> its warpgroup's `runs` when it last waited on a phase that all the
        warpgroup's warps arrived on after the warpgroup's last setmaxnreg."""

    def on_barrier(self, ctx, scope, lanes) -> None:
        if scope == "warp":
            return
        warps = np.unique(self._warp(np.asarray(lanes, dtype=np.int64)))
        self.barriers[warps] += 1

    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        return None

    def on_mbarrier_arrive(self, ctx, mbarrier, phase, lanes) -> None:
        """``lanes`` arrived on ``mbarrier``, counted in ``phase``: kept per warp with its
        warpgroup's setmaxnreg count (the phases before the previous one are dropped)."""
        warps = np.unique(self._warp(np.asarray(lanes, dtype=np.int64)))
        _, arrived = self.arrivals.setdefault((id(mbarrier), phase), (mbarrier, {}))
        for warp in warps.tolist():
            arrived[warp] = self.runs.get(self._first(warp), 0)
        self.arrivals.pop((id(mbarrier), phase - 2), None)

    def on_mbarrier_wait(self, ctx, mbarrier, phase, lanes) -> None:
        """``lanes`` observed ``phase`` of ``mbarrier`` complete: a warp whose warpgroup ran a
        setmaxnreg and whose 4 warps all arrived on the phase after it is synchronised."""
        _, arrived = self.arrivals.get((id(mbarrier), phase), (None, None))
        if not arrived:
            return
        for warp in np.unique(self._warp(np.asarray(lanes, dtype=np.int64))).tolist():
            first = self._first(warp)
            runs = self.runs.get(first, 0)
            if runs and all(arrived.get(w) == runs for w in range(first, first + 4)):
                self.waited[warp] = runs

    def _first(self, warp: int) -> int:
        """The first warp of ``warp``'s warpgroup (warpgroups are 4 warps of one CTA)."""
        return warp - (warp % self.warps_per_cta) % 4

    def _warp(self, lanes: np.ndarray) -> np.ndarray:
        wave = self.wave
        return wave.cta[lanes] * self.warps_per_cta + wave.tid[lanes] // WARP

    def check(self, ctx, rows: np.ndarray) -> None:
        """``rows``: the running warpgroups' lanes ``(warpgroups, 128)``. Raise when one of
        them ran a ``setmaxnreg`` before and some of its warps completed no barrier and no
        wait on a phase all its warps arrived on since (module docstring)."""
        for row in rows:
            warps = np.unique(self._warp(row))
            first = int(warps[0])
            counts = self.barriers[warps].copy()
            before = self.last.get(first)
            runs = self.runs.get(first, 0)
            self.last[first] = counts
            self.runs[first] = runs + 1
            if before is None:
                continue
            synced = (counts > before) | np.array(
                [self.waited.get(int(w)) == runs for w in warps.tolist()])
            if synced.all():
                continue
            late = warps[~synced]
            lanes = row[np.isin(self._warp(row), late)]
            raise ctx.error(
                f"a warpgroup's warps must synchronise between two of its "
                f"setmaxnreg (PTX ISA, setmaxnreg), but the warps of these threads completed "
                f"no barrier (nor a wait on an mbarrier phase all its warps arrived on) since "
                f"the warpgroup's previous one", lanes=lanes, code="setmaxnreg",
                hint="put a barrier every warp of the warpgroup takes part in (cuda.sync_threads "
                     "or the warpgroup's named barrier) between the two, or a wait on an "
                     "mbarrier phase every warp of the warpgroup arrives on after the first")


def sync_check(ctx) -> SetmaxnregSync:
    """The wave's `SetmaxnregSync`, made and added to the memory observers at first use."""
    found = ctx.state.ext.get(_KEY)
    if found is None:
        found = ctx.state.ext[_KEY] = SetmaxnregSync(ctx.wave)
        ctx.mem.observers.append(found)
    return found
