"""The asynchronous state machines without a kernel: an mbarrier's phase completes when its
arrivals and transaction bytes (which may go negative first) both reach zero, and owned shared
bytes are counted per byte with the owner of each."""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.async_state import MBarrier, Owner, PendingBytes


class _Ctx:
    """What the state machines use of a lane context: events."""

    def __init__(self):
        self.events = 0

    def event(self):
        self.events += 1


def test_phase_completes_when_arrivals_and_bytes_reach_zero():
    ctx = _Ctx()
    bar = MBarrier(0, 64, count=2, init_op=None)
    bar.complete_tx(ctx, 128)           # a copy completes before its expect_tx: tx = -128
    assert (bar.phase, bar.tx) == (0, -128)
    assert bar.arrive(ctx, lane=0) == 0
    bar.expect_tx(ctx, 128)             # back to 0, one arrival still pending
    assert bar.phase == 0 and not bar.completed(0) and bar.completed(1)
    assert bar.arrive(ctx, lane=1) == 0
    assert (bar.phase, bar.pending, bar.tx) == (1, 2, 0)
    assert bar.completed(0) and not bar.completed(1)
    assert ctx.events >= 4


def test_pending_bytes_count_overlaps_and_name_each_bytes_owner():
    owned = PendingBytes((2, 64))
    a, b = Owner("op-a", 3, "its wait"), Owner("op-b", 7, "its wait")
    owned.add(np.array([1, 1, 1, 1]), np.array([8, 9, 10, 11]), [a, b], np.array([0, 0, 1, 1]))
    owned.add(np.array([1]), np.array([11]), [a])
    assert owned.hit(np.array([0]), np.array([8]), 4) is None        # another CTA
    assert owned.hit(np.array([1, 1]), np.array([0, 8]), 2) == (1, 8, a)
    assert owned.hit(np.array([1]), np.array([10]), 1) == (0, 10, b)
    owned.release(np.array([1, 1, 1, 1]), np.array([8, 9, 10, 11]))
    assert owned.hit(np.array([1]), np.array([8]), 3) is None
    assert owned.hit(np.array([1]), np.array([8]), 4) == (0, 11, a)  # still owned once
