"""PTX barriers, fences and launch control on lane values: the rows ``bar_sync``, ``bar``,
``barrier_cluster``, ``fence``, ``fence_proxy_async``, ``fence_mbarrier_init`` and
``griddepcontrol`` (``setmaxnreg``: ptx_registers.py).

* ``bar.sync id`` / ``bar.sync id, count`` / ``bar.arrive id, count``: the CTA's barrier ``id``
  (0-15; ``bar.sync 0`` is ``__syncthreads``, the same barrier as ``cuda.sync_threads``),
  complete when ``count`` threads (all of the CTA without a count) have arrived; threads count
  one by one (sm_70+). ``bar.arrive`` does not wait. A thread that arrives again before the
  barrier completed is a located error (on the GPU its second arrival would be counted, letting
  the barrier complete without the threads it was meant to wait for). Several ``bar``
  instructions may use one id (PTX allows it), so unlike ``__syncthreads`` the op itself is not
  checked.
* ``barrier.cluster.arrive`` / ``.wait``: the cluster barrier of ``cuda.sync_cluster`` split in
  two; a thread waits for the phase it arrived in. Waiting without having arrived, or arriving
  twice without a wait, is a located error.
* Fences (``fence.sc``/``.acq_rel``, ``fence.proxy.async``) order nothing the interpreter would
  reorder: ops run in program order and every memory is coherent, and an asynchronous write
  (cp.async, TMA) lands only when its completion is observed. Each is an event
  (`engine.LaneContext.event`) for threads polling on memory. A ``fence.proxy.async`` that
  orders shared memory (no state space, ``.shared::cta``, ``.shared::cluster``) also stamps its
  threads for the proxy check (checks/proxies.py): a generic-proxy write followed by one may be
  read through the async proxy (wgmma, bulk and TMA stores). ``fence.mbarrier_init`` is
  mbarrier.py's.
* ``griddepcontrol.wait`` / ``.launch_dependents`` control programmatic dependent launch
  between two kernels in a stream; the interpreter runs one launch with no predecessor to wait
  for and no dependent to start early, so both are no-ops.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.barriers import BarrierWait, barrier
from tirx_mlir.backends.cuda.interpreter.checks.proxies import SHARED_FENCE_SPACES, proxy_check
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view

_CLUSTER_ARRIVALS = "barrier.cluster arrivals"


class CountedBarrierWait(BarrierWait):
    """A wait on a named barrier of ``count`` threads: says how many have arrived."""

    def __init__(self, bar, ctx, units, targets, ident: int, count: int):
        super().__init__(bar, ctx, units, targets)
        self.ident, self.count = ident, count

    def describe(self) -> str:
        b = self.barrier
        arrived = b.arrived & np.isin(b.unit_of, self.units)
        return (f"barrier {self.ident} of {self.count} threads, which only "
                f"{int(arrived.sum())} threads ({self.ctx.wave.describe(arrived)}) reached")


def _named_barrier(ctx, ident: int, count: int | None, wait: bool):
    bar = barrier(ctx, ("bar", ident), "cta")
    lanes = ctx.lanes
    again = bar.arrived[lanes]
    if again.any():
        raise ctx.error(f"arrive at barrier {ident} again before it completed", lanes[again],
                        code="barrier",
                        hint="every thread arrives once per phase: the threads it waits for "
                             "must arrive before these arrive again")
    expected = ctx.wave.T if count is None else count
    units, targets = bar.arrive(ctx, lanes, expected, False)
    if wait:
        pending = bar.wait(ctx, units, targets) if count is None else \
            CountedBarrierWait(bar, ctx, units, targets, ident, count)
        if not pending.satisfied():
            yield pending


@ptx_row("bar_sync", blocking=True)
def run_bar_sync(ctx, op, args):
    yield from _named_barrier(ctx, int(row_view(op, args).mods["id"]), None, True)
    return ()


@ptx_row("bar", blocking=True)
def run_bar(ctx, op, args):
    mods = row_view(op, args).mods
    count = int(mods["count"])
    if count > ctx.wave.T:
        raise ctx.error(f"barrier {mods['id']} waits for {count} threads, but the block has "
                        f"{ctx.wave.T}", code="barrier")
    yield from _named_barrier(ctx, int(mods["id"]), count, mods["mode"] == "sync")
    return ()


@ptx_row("barrier_cluster", blocking=True)
def run_barrier_cluster(ctx, op, args):
    wave = ctx.wave
    bar = barrier(ctx, ("cluster",), "cluster")
    pending = ctx.state.ext.get(_CLUSTER_ARRIVALS)
    if pending is None:
        pending = ctx.state.ext[_CLUSTER_ARRIVALS] = np.full(wave.L, -1, dtype=np.int64)
    lanes = ctx.lanes
    if row_view(op, args).mods["mode"] == "arrive":
        twice = pending[lanes] >= 0
        if twice.any():
            raise ctx.error("barrier.cluster.arrive again before barrier.cluster.wait",
                            lanes[twice], code="barrier",
                            hint="each arrive is followed by a wait before the next arrive")
        size = int(np.prod(wave.cluster_dim)) if wave.cluster_dim else 1
        units, targets = bar.arrive(ctx, lanes, size * wave.T, False)
        pending[lanes] = targets[np.searchsorted(units, bar.unit_of[lanes])]
        return ()
    never = pending[lanes] < 0
    if never.any():
        raise ctx.error("barrier.cluster.wait without a barrier.cluster.arrive before it",
                        lanes[never], code="barrier", hint="arrive first, then wait")
    units = np.unique(bar.unit_of[lanes])
    targets = np.array([pending[lanes][bar.unit_of[lanes] == u].max() for u in units])
    pending[lanes] = -1
    wait = bar.wait(ctx, units, targets)
    if not wait.satisfied():
        yield wait
    return ()


@ptx_row("fence")
def run_fence(ctx, op, args):
    ctx.event()
    return ()


@ptx_row("fence_proxy_async")
def run_fence_proxy_async(ctx, op, args):
    check = proxy_check(ctx)
    if check is not None and row_view(op, args).mods.get("space") in SHARED_FENCE_SPACES:
        check.fence(ctx.lanes)
    ctx.event()
    return ()


@ptx_row("griddepcontrol")
def run_launch_control(ctx, op, args):
    return ()
