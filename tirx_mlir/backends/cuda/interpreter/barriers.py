"""Barriers: ``__syncthreads`` and its vote forms, named barriers (warpgroup sync), cluster and
grid barriers, ``__syncwarp``.

A barrier counts arrivals per *unit* (a CTA, a cluster, the grid) and completes a *generation*
when as many threads as it expects have arrived; a thread that arrives waits (its group yields
a `Wait`) until the generation it arrived in has completed. When the whole wave arrives at
once — every lane is in one group, the usual case — the barrier completes without waiting.

Checked (each a located error naming the threads):

* divergent ``__syncthreads``: threads of one CTA that arrive at two different
  ``cuda.sync_threads`` ops (CUDA requires every thread of the block to reach the same one);
* a barrier some threads of its unit never reach: the run ends in the engine's deadlock error,
  which names the threads that arrived and those that did not;
* ``__syncwarp(mask)``: every lane of the mask must be active here, and every active lane in
  the mask (`lane_masks.check_warp_mask`, the rule of every warp-synchronous op).

Completed barriers are reported to the memory observers (``on_barrier(ctx, scope, lanes)``),
which order shared-memory accesses for the race check, and counted per op in the statistics
(``barriers``: CTA-generations completed).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda import sync
from tirx_mlir.backends.cuda.interpreter.engine import Wait
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.lane_masks import check_warp_mask, mask_bits
from tirx_mlir.diagnostics import format_location


class Barrier:
    """One barrier resource (``key``) of a wave: arrivals and generations per unit."""

    def __init__(self, ctx, scope: str, units: np.ndarray, n_units: int):
        self.scope = scope
        self.unit_of = units
        self.n_units = n_units
        self.arrived = np.zeros(ctx.wave.L, dtype=bool)
        self.generation = np.zeros(n_units, dtype=np.int64)
        self.first_op: dict[int, object] = {}

    def arrive(self, ctx, lanes: np.ndarray, expected: np.ndarray, same_op: bool):
        """Count ``lanes`` in; returns (units they belong to, the generation each must see
        completed)."""
        if len(lanes) == len(self.unit_of) and np.isscalar(expected) and not self.arrived.any() \
                and len(lanes) == expected * self.n_units:
            # the whole wave at once, nobody waiting: every unit completes now
            units = np.arange(self.n_units)
            targets = self.generation + 1
            self.generation += 1
            ctx.stats.add(ctx.op, "barriers", self.n_units)
            for obs in ctx.mem.observers:
                obs.on_barrier(ctx, self.scope, lanes)
            return units, targets
        units = np.unique(self.unit_of[lanes])
        if same_op:
            for u in units:
                first = self.first_op.setdefault(int(u), ctx.op)
                if first is not ctx.op:
                    waiting = self.arrived & (self.unit_of == u)
                    raise ctx.error(
                        f"divergent __syncthreads: {ctx.wave.describe(lanes)} reached this "
                        f"barrier, but {ctx.wave.describe(waiting)} wait at the one at "
                        f"{format_location(first)}; every thread of the block must reach the "
                        f"same barrier", code="barrier",
                        hint="move the barrier out of the branch (or make the condition the "
                             "same for the whole block)")
        self.arrived[lanes] = True
        targets = self.generation[units] + 1
        counts = np.bincount(self.unit_of[self.arrived], minlength=self.n_units)
        done = np.flatnonzero(counts >= expected)
        if len(done):
            self.generation[done] += 1
            released = np.isin(self.unit_of, done)
            self.arrived[released] = False
            for u in done:
                self.first_op.pop(int(u), None)
            ctx.stats.add(ctx.op, "barriers", len(done))
            for obs in ctx.mem.observers:
                obs.on_barrier(ctx, self.scope, np.flatnonzero(released))
        return units, targets

    def wait(self, ctx, units: np.ndarray, targets: np.ndarray) -> "BarrierWait":
        return BarrierWait(self, ctx, units, targets)


class BarrierWait(Wait):
    def __init__(self, barrier: Barrier, ctx, units: np.ndarray, targets: np.ndarray):
        self.barrier = barrier
        self.ctx = ctx
        self.op = ctx.op
        self.units = units
        self.targets = targets

    def satisfied(self) -> bool:
        return bool((self.barrier.generation[self.units] >= self.targets).all())

    def describe(self) -> str:
        b = self.barrier
        missing = ~b.arrived & np.isin(b.unit_of, self.units)
        return (f"the {b.scope} barrier, which {self.ctx.wave.describe(missing)} never "
                f"reach")


def barrier(ctx, key, scope: str) -> Barrier:
    """The wave's barrier ``key`` (created on first use) over units of ``scope``."""
    found = ctx.state.barriers.get(key)
    if found is None:
        wave = ctx.wave
        if scope == "cta":
            units, n = wave.cta, wave.W
        elif scope == "cluster":
            size = int(np.prod(wave.cluster_dim)) if wave.cluster_dim else 1
            units, n = wave.cta // size, wave.W // size  # the executor keeps clusters together
        else:  # the grid of each simulated PE
            units, n = wave.pe, wave.pes
        found = ctx.state.barriers[key] = Barrier(ctx, scope, units, n)
    return found


def arrive_and_wait(ctx, key, scope: str, expected, same_op: bool = False):
    """Arrive at barrier ``key`` with the active lanes and wait for its completion."""
    bar = barrier(ctx, key, scope)
    lanes = ctx.lanes
    units, targets = bar.arrive(ctx, lanes, expected, same_op)
    pending = bar.wait(ctx, units, targets)
    if not pending.satisfied():
        yield pending
    return units


@lane_impl(sync.SyncThreadsOp, blocking=True)
def run_sync_threads(ctx, op, args):
    yield from arrive_and_wait(ctx, ("bar", 0), "cta", ctx.wave.T, same_op=True)
    return ()


@lane_impl(sync.SyncThreadsVoteOp, blocking=True)
def run_sync_threads_vote(ctx, op, args):
    (pred,) = args
    key = ("vote", id(op))
    votes = ctx.state.ext.setdefault(key, np.zeros(ctx.wave.L, dtype=bool))
    votes[ctx.mask] = pred[ctx.mask]
    yield from arrive_and_wait(ctx, ("bar", 0), "cta", ctx.wave.T, same_op=True)
    per_cta = votes.reshape(ctx.wave.W, ctx.wave.T)
    mode = op.mode.data
    if mode == "count":
        result = per_cta.sum(axis=1)
    elif mode == "and":
        result = per_cta.all(axis=1)
    else:
        result = per_cta.any(axis=1)
    return (np.repeat(result.astype(np.int32), ctx.wave.T),)


@lane_impl(sync.SyncWarpgroupOp, blocking=True)
def run_sync_warpgroup(ctx, op, args):
    # bar.sync id, 128. per_warpgroup: warpgroup w on its own id (barrier + w), one unit per
    # (CTA, warpgroup); else every warpgroup on the one id: a unit per CTA, and arrivals of two
    # warpgroups in one phase are the hardware's mix-up (warps of either complete the count).
    wave = ctx.wave
    groups = -(-wave.T // 128)
    per_group = op.per_warpgroup is not None
    key = ("warpgroup", op.int_prop("barrier")) if per_group else ("bar", op.int_prop("barrier"))
    found = ctx.state.barriers.get(key)
    if found is None:
        units, n = (wave.cta * groups + wave.tid // 128, wave.W * groups) if per_group else \
            (wave.cta, wave.W)
        found = ctx.state.barriers[key] = Barrier(ctx, "warpgroup", units, n)
    lanes = ctx.lanes
    if not per_group:
        _one_warpgroup_per_phase(ctx, found, lanes, op.int_prop("barrier"))
    units, targets = found.arrive(ctx, lanes, 128, False)
    pending = found.wait(ctx, units, targets)
    if not pending.satisfied():
        yield pending
    return ()


def _one_warpgroup_per_phase(ctx, bar: Barrier, lanes: np.ndarray, ident: int) -> None:
    wave = ctx.wave
    for cta in np.unique(wave.cta[lanes]):
        mine = lanes[wave.cta[lanes] == cta]
        waiting = np.flatnonzero(bar.arrived & (wave.cta == cta))
        groups = np.unique(wave.tid[np.concatenate([mine, waiting])] // 128)
        if len(groups) > 1:
            raise ctx.error(
                f"warpgroups {', '.join(map(str, groups))} of {wave.cta_name(int(cta))} "
                f"synchronise on named barrier {ident} at once: bar.sync {ident}, 128 completes "
                f"on any 128 arrivals, mixing their warps", mine, code="barrier",
                hint="give each warpgroup its own barrier (cuda.sync_warpgroup ... "
                     "per_warpgroup)")


@lane_impl(sync.SyncClusterOp, blocking=True)
def run_sync_cluster(ctx, op, args):
    size = int(np.prod(ctx.wave.cluster_dim)) if ctx.wave.cluster_dim else 1
    yield from arrive_and_wait(ctx, ("cluster",), "cluster", size * ctx.wave.T)
    return ()


@lane_impl(sync.SyncGridOp, blocking=True)
def run_sync_grid(ctx, op, args):
    yield from arrive_and_wait(ctx, ("grid",), "grid", ctx.wave.L // ctx.wave.pes)
    return ()


@lane_impl(sync.SyncWarpOp)
def run_sync_warp(ctx, op, args):
    (mask,) = args
    check_warp_mask(ctx, mask_bits(ctx, mask), ctx.mask, "__syncwarp")
    for obs in ctx.mem.observers:
        obs.on_barrier(ctx, "warp", ctx.lanes)
    return ()
