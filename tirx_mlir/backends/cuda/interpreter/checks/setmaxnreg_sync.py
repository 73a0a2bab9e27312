"""The synchronisation a warpgroup owes between two of its ``setmaxnreg``.

PTX ISA, "setmaxnreg": the same instruction must be executed by all warps of a warpgroup, and
after executing one, all warps of the warpgroup must synchronise explicitly before executing
a subsequent ``setmaxnreg``. The first half is the collective rule (ptx_registers.py,
`tensor_core.lane_impls.collective_lanes`); this is the second: each warp of a warpgroup must
have completed a barrier (``bar.sync``/``barrier.sync`` of the CTA or a named barrier, a
cluster or grid barrier: not ``__syncwarp``, which orders one warp's lanes only) since the
warpgroup's previous ``setmaxnreg``, else the second one is a located error naming the
warpgroup's threads.

`SetmaxnregSync` is a memory observer of one wave (it hears every completed barrier), added by
the wave's first ``setmaxnreg``: barriers before it do not matter.
"""

from __future__ import annotations

import numpy as np

WARP = 32
_KEY = "setmaxnreg sync"


class SetmaxnregSync:
    """Per wave: how many barriers each warp completed, and the counts each warpgroup's warps
    had at its last ``setmaxnreg``."""

    def __init__(self, wave) -> None:
        self.wave = wave
        self.warps_per_cta = -(-wave.T // WARP)
        self.barriers = np.zeros(wave.W * self.warps_per_cta, dtype=np.int64)
        self.last: dict[int, np.ndarray] = {}
        """First warp of a warpgroup -> its 4 warps' barrier counts at its last setmaxnreg."""

    def on_barrier(self, ctx, scope, lanes) -> None:
        if scope == "warp":
            return
        warps = np.unique(self._warp(np.asarray(lanes, dtype=np.int64)))
        self.barriers[warps] += 1

    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        return None

    def _warp(self, lanes: np.ndarray) -> np.ndarray:
        wave = self.wave
        return wave.cta[lanes] * self.warps_per_cta + wave.tid[lanes] // WARP

    def check(self, ctx, rows: np.ndarray) -> None:
        """``rows``: the running warpgroups' lanes ``(warpgroups, 128)``. Raise when one of
        them ran a ``setmaxnreg`` before and some of its warps completed no barrier since."""
        for row in rows:
            warps = np.unique(self._warp(row))
            first = int(warps[0])
            counts = self.barriers[warps].copy()
            before = self.last.get(first)
            self.last[first] = counts
            if before is None or (counts > before).all():
                continue
            late = warps[counts <= before]
            lanes = row[np.isin(self._warp(row), late)]
            raise ctx.error(
                f"a warpgroup's warps must synchronise between two of its "
                f"setmaxnreg (PTX ISA, setmaxnreg), but the warps of these threads completed "
                f"no barrier since the warpgroup's previous one", lanes=lanes, code="setmaxnreg",
                hint="put a barrier every warp of the warpgroup takes part in (cuda.sync_threads "
                     "or the warpgroup's named barrier) between the two")


def sync_check(ctx) -> SetmaxnregSync:
    """The wave's `SetmaxnregSync`, made and added to the memory observers at first use."""
    found = ctx.state.ext.get(_KEY)
    if found is None:
        found = ctx.state.ext[_KEY] = SetmaxnregSync(ctx.wave)
        ctx.mem.observers.append(found)
    return found
