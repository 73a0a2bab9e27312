"""Device diagnostics and timing on lane values: ``cuda.printf``, ``cuda.clock64``,
``cuda.nanosleep`` and ``cuda.trap``.

* ``printf``: every active lane prints its line, in lane order (the GPU's order is unspecified),
  to the interpreter's output file (``file=`` of `tirx_mlir.interpreter.make_interpreter`;
  stdout by default, as ``tirx-run`` prints), formatted by C's rules (c_printf.py).
* ``clock64``: the interpreter's clock is the step count: the ops the launch has started so far
  (`stats.SimtStats.op_executions`, counted a block at a time) plus the number of ``clock64``
  reads before this one in the wave, the same for every lane of the group. It increases
  strictly from one read to the next in every thread, and a region that runs more ops reads a
  larger difference; it is not a cycle count.
* ``nanosleep``: no time passes, but the thread lets the others run first (a poll point), so a
  spin-wait with backoff makes progress. A sleep counts as an event (something others may wait
  for) for the first `QUIET_SLEEPS` sleeps in a row in which nothing else in the wave changed;
  after that it is a plain poll, so a spin-wait on a flag nobody sets ends in the engine's
  deadlock error instead of running to the step budget, and a thread that only sleeps (a delay
  loop) is never mistaken for a deadlock before that many sleeps.
* ``trap``: a located error naming the threads that trapped.
"""

from __future__ import annotations

import sys

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness

from tirx_mlir.backends.cuda.dialects.cuda import diagnostics
from tirx_mlir.backends.cuda.dialects.cuda.printf_format import Conversion, pieces
from tirx_mlir.backends.cuda.interpreter.c_printf import format_value
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl

QUIET_SLEEPS = 1024
"""Sleeps in a row, with nothing else changing in the wave, that still count as an event."""


def _scalars(value: np.ndarray, t) -> list:
    """Python ints (zero-extended for unsigned types) or floats of a lane value."""
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            return [int(v) for v in value.astype(np.int64)]
        if t.signedness.data == Signedness.UNSIGNED:
            mask = (1 << t.width.data) - 1
            return [int(v) & mask for v in value.astype(np.int64)]
        return [int(v) for v in value.astype(np.int64)]
    return [float(v) for v in value.astype(np.float64)]


@lane_impl(diagnostics.PrintfOp)
def run_printf(ctx, op, args):
    lanes = ctx.lanes
    parts = pieces(op.format.data)
    columns = iter([_scalars(a[lanes], v.type) for a, v in zip(args, op.args)])
    per_part = [next(columns) if isinstance(p, Conversion) else None for p in parts]
    out = getattr(ctx.engine, "output", None) or sys.stdout
    text = "".join(
        "".join(format_value(p, col[i]) if col is not None else p
                for p, col in zip(parts, per_part))
        for i in range(len(lanes)))
    out.write(text)
    return ()


_CLOCK = "clock64 reads"
_SLEEP = "nanosleep"


@lane_impl(diagnostics.Clock64Op)
def run_clock64(ctx, op, args):
    reads = ctx.state.ext.get(_CLOCK, 0) + 1
    ctx.state.ext[_CLOCK] = reads
    return (np.full(ctx.wave.L, ctx.stats.op_executions + reads, dtype=np.int64),)


class _Sleeps:
    """What the wave looked like at the last sleep, and how many sleeps saw nothing change."""

    def __init__(self):
        self.seen: tuple[int, int] | None = None
        self.quiet = 0
        self.own_events = 0


@lane_impl(diagnostics.NanosleepOp, blocking=True)
def run_nanosleep(ctx, op, args):
    sleeps = ctx.state.ext.setdefault(_SLEEP, _Sleeps())
    others = (ctx.mem.version, ctx.state.events - sleeps.own_events)
    if others != sleeps.seen:
        sleeps.seen, sleeps.quiet = others, 0
    sleeps.quiet += 1
    if sleeps.quiet <= QUIET_SLEEPS:
        sleeps.own_events += 1
        ctx.event()
    yield ctx.poll("a change while it sleeps (nothing else in the wave writes memory or "
                   "arrives anywhere)")
    return ()


@lane_impl(diagnostics.TrapOp)
def run_trap(ctx, op, args):
    raise ctx.error("__trap(): the kernel aborted", ctx.lanes, code="trap",
                    hint="the launch fails on the GPU with an unspecified launch failure")
