"""``setmaxnreg`` on lane values: a warpgroup's registers per thread, moved to or from its CTA's
pool (PTX ISA, setmaxnreg).

Checked, each a located error naming the threads:

* the instruction is warpgroup-collective (``.sync.aligned``): all 4 warps of each warpgroup
  that runs it run it together (`tensor_core.lane_impls.collective_lanes`), in a block of whole
  warpgroups;
* with the kernel's registers per thread at launch fixed (``cuda.max_registers``,
  dialects/cuda/max_registers.py: every warpgroup starts with that many, the CTA's pool empty),
  ``dec`` to more than the warpgroup holds, or ``inc`` to fewer, is an error (undefined in the
  ISA). ``dec`` gives the difference to the pool; ``inc`` takes it and waits, as the hardware
  does, until the pool has enough: registers no warpgroup of the CTA ever gives back end the
  run in the engine's deadlock error, which says how many were asked for and how many the pool
  holds.

* between two ``setmaxnreg`` of a warpgroup, each of its warps completed a barrier (the ISA's
  explicit synchronisation: checks/setmaxnreg_sync.py).

Without ``cuda.max_registers`` the instruction has no effect (ptxas ignores it: advisory C7508),
so only the collective and synchronisation rules are checked. The registers themselves are not
modelled: a thread's values never depend on them.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda.max_registers import max_registers
from tirx_mlir.backends.cuda.interpreter.checks.setmaxnreg_sync import sync_check
from tirx_mlir.backends.cuda.interpreter.engine import Wait
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.tensor_core.lane_impls import WARPGROUP, collective_lanes
from tirx_mlir.dialects.tirx.kernel import KernelOp

_POOL = "setmaxnreg pool"


class RegisterPool:
    """Per wave: each warpgroup's registers per thread, and each CTA's free registers."""

    def __init__(self, wave, entry: int):
        self.per_cta = -(-wave.T // WARPGROUP)
        self.current = np.full(wave.W * self.per_cta, entry, dtype=np.int64)
        self.free = np.zeros(wave.W, dtype=np.int64)


class PoolWait(Wait):
    """An ``inc`` waiting until its CTAs' pools hold ``need`` registers."""

    def __init__(self, pool: RegisterPool, need: np.ndarray, count: int):
        self.pool, self.need, self.count = pool, need, count

    def satisfied(self) -> bool:
        return bool((self.pool.free >= self.need).all())

    def describe(self) -> str:
        cta = int(np.flatnonzero(self.pool.free < self.need)[0])
        return (f"{int(self.need[cta])} registers from the CTA's pool, which holds "
                f"{int(self.pool.free[cta])} (setmaxnreg.inc {self.count})")


def _entry(op) -> int | None:
    kernel = op.parent_op()
    while kernel is not None and not isinstance(kernel, KernelOp):
        kernel = kernel.parent_op()
    return None if kernel is None else max_registers(kernel)


@ptx_row("setmaxnreg", blocking=True)
def run_setmaxnreg(ctx, op, args):
    rows = collective_lanes(ctx, WARPGROUP)
    sync_check(ctx).check(ctx, rows)
    entry = _entry(op)
    if entry is None:
        return ()
    pool = ctx.state.ext.get(_POOL)
    if pool is None:
        pool = ctx.state.ext[_POOL] = RegisterPool(ctx.wave, entry)
    mods = row_view(op, args).mods
    count, action = int(mods["count"]), mods["action"]
    first = rows[:, 0]
    ctas = ctx.wave.cta[first]
    units = ctas * pool.per_cta + ctx.wave.tid[first] // WARPGROUP
    held = pool.current[units]
    bad = held < count if action == "dec" else held > count
    if bad.any():
        word = "more" if action == "dec" else "fewer"
        raise ctx.error(f"setmaxnreg.{action} to {count} registers per thread, {word} than the "
                        f"warpgroup holds ({int(held[bad][0])})", rows[bad].ravel(),
                        code="setmaxnreg",
                        hint="dec lowers a warpgroup's count and inc raises it: compare with "
                             "the kernel's cuda.max_registers and the earlier setmaxnreg")
    change = (held - count) * WARPGROUP  # > 0: given back (dec), < 0: taken (inc)
    need = np.zeros(ctx.wave.W, dtype=np.int64)
    np.add.at(need, ctas, -change)
    if action == "inc" and (pool.free < need).any():
        yield PoolWait(pool, need, count)
    pool.free -= need
    pool.current[units] = count
    ctx.event()
    return ()
