"""``ptx.mbarrier_*`` on lane values: init, arrive (returning the phase token), arrive.expect_tx,
expect_tx, test_wait.parity / try_wait.parity and inval, per PTX ISA "mbarrier" (the state
machine is `async_state.MBarrier`).

Lanes of one op act in lane order: 64 lanes arriving at once on a barrier of count 32 complete
one phase and count 32 arrivals of the next, as they would one after the other.

A test (``test_wait``/``try_wait``) of the current phase first lands the copies that complete on
that mbarrier (TMA and bulk loads, then cp.async tied to it by ``cp.async.mbarrier.arrive``),
stopping once the phase completes: data arrives when its phase is waited on, never earlier, and
a copy the phase did not need (an init count short of the arrivals) stays in flight. A failed test yields ``ctx.poll`` so that
producers run; if no thread can change anything any more, the engine's deadlock error names
the mbarrier (shared offset and buffer), the phase and its pending arrivals and transaction
bytes. Arrivals and successful waits are reported to the memory observers
(``on_mbarrier_arrive``: the phase each arrival counted in; ``on_mbarrier_wait``: the phase the
waiter observed complete), which the racecheck takes as release and acquire: a wait orders the
earlier accesses of the arrivals counted in the phases up to the one it observed (not of an
arrival that spilled into the next phase) before the waiter's later ones.

The state token ``mbarrier.arrive`` returns is the phase number the arrival counted in.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.async_state import (MBarrier, Owner, hooks,
                                                             report_arrivals, shared_targets,
                                                             state_of)
from tirx_mlir.backends.cuda.interpreter.ptx_memory_ops import space_of
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma_reads
from tirx_mlir.diagnostics import format_location

MAX_COUNT = (1 << 20) - 1
"""The largest arrival count and transaction count of an mbarrier (PTX ISA: 2^20 - 1)."""


def barrier_keys(ctx, view, name: str = "bar") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lanes, CTA, offset) of the active lanes' mbarrier operand (8-byte aligned)."""
    lanes = ctx.lanes
    space = space_of(ctx, view.mods) if "space" in view.mods else memory.SHARED
    cta, offset = shared_targets(ctx, space, view.one(name), 8, lanes, 8,
                                 "the mbarrier address")
    return lanes, cta, offset


@ptx_row("mbarrier_init")
def run_init(ctx, op, args):
    view = row_view(op, args)
    lanes, cta, offset = barrier_keys(ctx, view)
    count = view.one("count").astype(np.int64) & 0xFFFFFFFF
    state = state_of(ctx)
    now: dict[tuple[int, int], int] = {}
    for i, lane in enumerate(lanes.tolist()):
        n = int(count[lane])
        if not 1 <= n <= MAX_COUNT:
            raise ctx.error(f"mbarrier.init with count {n}; the count must be in "
                            f"[1, {MAX_COUNT}]", [lane], code="mbarrier")
        key = (int(cta[i]), int(offset[i]))
        if now.get(key) == n:
            continue  # several lanes of this init: the same object, the same count
        now[key] = n
        old = state.barriers.get(key)
        if old is not None:
            if old.pending != old.count or old.tx or state.in_flight(key):
                raise ctx.error(
                    f"initialises {old.name(ctx.engine)} again while its phase {old.phase} is "
                    f"in use ({old.pending_text()})", [lane], code="mbarrier",
                    hint="invalidate it (ptx.mbarrier_inval) once no thread uses it, then "
                         "initialise it")
        else:
            state.guarded.add(np.array([key[0]]), np.arange(key[1], key[1] + 8),
                              [Owner(op, lane, "its ptx.mbarrier_inval")])
        state.barriers[key] = MBarrier(key[0], key[1], n, op)
        wgmma_reads.on_init(ctx, key)  # a new object: no phase carries knowledge yet
    ctx.event()
    return ()




@ptx_row("mbarrier_inval")
def run_inval(ctx, op, args):
    view = row_view(op, args)
    lanes, cta, offset = barrier_keys(ctx, view)
    state = state_of(ctx)
    for i, lane in enumerate(lanes.tolist()):
        key = (int(cta[i]), int(offset[i]))
        bar = state.barriers.get(key)
        if bar is None:
            continue  # another lane of this op invalidated it already, or it was never live
        if state.in_flight(key):
            raise ctx.error(f"invalidates {bar.name(ctx.engine)} while copies that complete "
                            f"on it are in flight", [lane], code="mbarrier",
                            hint="wait for its phase first")
        del state.barriers[key]
        state.guarded.release(np.array([key[0]]), np.arange(key[1], key[1] + 8))
    return ()


def _arrive_each(ctx, op, view, tx_name: str | None, arrive: bool) -> np.ndarray:
    lanes, cta, offset = barrier_keys(ctx, view)
    state = state_of(ctx)
    tokens = np.zeros(ctx.wave.L, dtype=np.int64)
    tx = None if tx_name is None else view.one(tx_name).astype(np.int64) & 0xFFFFFFFF
    arrivals = []
    for i, lane in enumerate(lanes.tolist()):
        bar = state.barrier(ctx, int(cta[i]), int(offset[i]))
        if tx is not None:
            n = int(tx[lane])
            if n > MAX_COUNT:
                raise ctx.error(f"a transaction count of {n} bytes; at most {MAX_COUNT}",
                                [lane], code="mbarrier")
            bar.expect_tx(ctx, n)
        if arrive:
            tokens[lane] = bar.arrive(ctx, lane)
            arrivals.append((bar, int(tokens[lane]), lane))
            wgmma_reads.on_arrive(ctx, (int(cta[i]), int(offset[i])), int(tokens[lane]), lane)
        else:
            tokens[lane] = bar.phase
    report_arrivals(ctx, arrivals)
    return tokens


@ptx_row("mbarrier_arrive")
def run_arrive(ctx, op, args):
    return (_arrive_each(ctx, op, row_view(op, args), None, True),)


@ptx_row("mbarrier_arrive_expect_tx")
def run_arrive_expect_tx(ctx, op, args):
    return (_arrive_each(ctx, op, row_view(op, args), "tx_count", True),)


@ptx_row("mbarrier_expect_tx")
def run_expect_tx(ctx, op, args):
    _arrive_each(ctx, op, row_view(op, args), "tx_count", False)
    return ()


@ptx_row("mbarrier_test_wait_parity", "mbarrier_try_wait_parity", blocking=True)
def run_test_wait(ctx, op, args):
    view = row_view(op, args)
    lanes, cta, offset = barrier_keys(ctx, view)
    parity = view.one("phase").astype(np.int64) & 1
    state = state_of(ctx)
    ready = _test(ctx, state, lanes, cta, offset, parity)
    if not ready[lanes].all():
        yield ctx.poll(_waiting_for(ctx, state, lanes, cta, offset, ready))
        ready = _test(ctx, state, lanes, cta, offset, parity)
    _report_order(ctx, state, lanes, cta, offset, ready)
    return (ready,)


def _test(ctx, state, lanes, cta, offset, parity) -> np.ndarray:
    """Per lane, in lane order: land what the tested phase needs, then whether it completed.
    A phase whose landing left it incomplete has nothing more to land: the next lanes do not
    land it again (nothing is issued or tied between two lanes' tests)."""
    ready = np.zeros(ctx.wave.L, dtype=bool)
    lane_list = lanes.tolist()
    exhausted: set[tuple[tuple[int, int], int]] = set()
    for lane, c, o, p in zip(lane_list, cta.tolist(), offset.tolist(),
                             parity[lanes].tolist()):
        key = (c, o)
        bar = state.barriers.get(key) or state.barrier(ctx, c, o)
        if not bar.completed(p) and (key, bar.phase) not in exhausted:
            phase = bar.phase
            state.land_for_barrier(ctx, key)
            if bar.phase == phase:
                exhausted.add((key, phase))
        if bar.completed(p):
            ready[lane] = True  # what the phase's arrivals knew of wgmma groups (wgmma_reads.py)
            wgmma_reads.on_acquire(ctx, key, bar.phase - 1, lane)
    return ready


def _waiting_for(ctx, state, lanes, cta, offset, ready) -> str:
    keys = {(int(c), int(o)) for c, o, lane in zip(cta, offset, lanes) if not ready[lane]}
    bar = state.barriers[min(keys)]
    more = f" (and {len(keys) - 1} more mbarriers)" if len(keys) > 1 else ""
    return (f"{bar.describe_phase(ctx.engine)} to complete{more}: {bar.pending_text()}; "
            f"it was initialised at {format_location(bar.init_op)}")


def _report_order(ctx, state, lanes, cta, offset, ready) -> None:
    """Tell the memory observers (the racecheck: an acquire) that the ready lanes observed
    their mbarrier's last completed phase (the one before the current: the phase a parity
    test finds complete)."""
    found = hooks(ctx, "on_mbarrier_wait")
    if not found:
        return
    by_key: dict[tuple[int, int], list[int]] = {}
    for c, o, lane in zip(cta.tolist(), offset.tolist(), lanes.tolist()):
        if ready[lane]:
            by_key.setdefault((c, o), []).append(lane)
    for key, waiters in by_key.items():
        bar = state.barriers[key]
        for hook in found:
            hook(ctx, bar, bar.phase - 1, np.array(waiters, dtype=np.int64))


@ptx_row("fence_mbarrier_init")
def run_fence_mbarrier_init(ctx, op, args):
    # An initialised mbarrier is visible to the whole cluster at once here.
    ctx.event()
    return ()
