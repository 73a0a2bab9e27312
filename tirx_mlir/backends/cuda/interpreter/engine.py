"""The SIMT engine: runs one wave of CTAs, every op for all lanes of a group at once.

Execution model:

* A **group** is a set of lanes at one program point (a bool mask over the wave's lanes) with
  a Python generator walking the IR for them. A wave starts as one group of every lane.
* **Divergence**: ``scf.if`` with lanes on both sides runs the then-branch with the lanes whose
  condition holds and the else-branch with the others, and merges the results per lane
  (``select``); loops whose bounds or conditions differ per lane keep iterating with the lanes
  still inside (an active mask) and the others wait at the loop's end (reconvergence). If a
  branch may block (it holds a barrier or a wait), the two branches become two **child groups**
  that the scheduler interleaves, so a producer warp and a consumer warp of one CTA can hand
  data to each other; the parent resumes when both have finished.
* **Blocking**: an implementation registered ``blocking=True`` may yield a `Wait` (resume when
  its condition holds, e.g. a barrier's generation advanced) or a `Poll` (a test that failed:
  let the other groups run first). The scheduler runs ready groups round-robin; a waiting
  group resumes once its condition holds and either no group is ready or a poller saw
  nothing change since its last poll (pollers never starve it).
* **Deadlock**: when no group can run — every live group waits on a condition that does not
  hold, or keeps polling while nothing changes (`MAX_IDLE_POLLS` polls in a row) — the run
  stops with a located error that names what each group waits for and which threads never
  arrived.
* Steps: every op executed costs one step of the interpreter's budget (``max_steps``) plus one
  per `LANES_PER_STEP` lanes that run it, and every wave a setup cost, so a kernel that never
  ends, or a grid of 2**31 CTAs, stops with a located error instead of hanging.

Implementations come from `impls.IMPLS` (see impls.py); `LaneContext` is what they receive.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np
from xdsl.ir import Block, Operation, Region, SSAValue

from tirx_mlir.backends.cuda.interpreter import impls as impl_table
from tirx_mlir.backends.cuda.interpreter.values import Deferred
from tirx_mlir.backends.cuda.interpreter.wave import Wave
from tirx_mlir.interpreter.runtime import InterpretError


LANES_PER_STEP = 256
"""An op run for a group costs one step plus one per this many of its lanes (as a tile op
costs one more per 256 elements in the core interpreter)."""

WAVE_SETUP_STEPS_PER_LANE = 1 / 16
"""Setting up a wave (lane geometry, fresh shared memory) costs this many steps per lane."""

MAX_IDLE_POLLS = 1000
"""Polls in a row, with every group only polling and nothing changing, before the run is a
deadlock (a loop may poll a bounded number of times and then go on without any write)."""


class Wait:
    """Resume the group when `satisfied` holds; `describe` says what it waits for."""

    def satisfied(self) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass
class WaitUntil(Wait):
    condition: Callable[[], bool]
    what: str

    def satisfied(self) -> bool:
        return self.condition()

    def describe(self) -> str:
        return self.what


@dataclass
class Poll:
    """A test that failed (``mbarrier.test_wait`` false): let every other group run first."""

    what: str


@dataclass
class Fork:
    """Run ``branches`` (region, mask, args) as child groups; resume with their results."""

    branches: list[tuple[Region, np.ndarray, tuple]]


@dataclass
class RunState:
    """What the ops of one wave share beyond memory: barriers, per-module state (``ext``), and
    a version counter that every event other threads could wait for advances."""

    wave: Wave
    barriers: dict[Any, Any] = field(default_factory=dict)
    ext: dict[Any, Any] = field(default_factory=dict)
    events: int = 0


class LaneContext:
    """What an implementation sees: the running group's ``mask`` and the op being run (both
    set by the engine before each op), the wave, its memory and state, the statistics."""

    __slots__ = ("engine", "wave", "mem", "state", "stats", "mask", "op", "group", "_lanes")

    def __init__(self, engine: "Engine", mask: np.ndarray):
        self.engine = engine
        self.wave = engine.wave
        self.mem = engine.mem
        self.state = engine.state
        self.stats = engine.stats
        self.mask = mask
        self.op: Operation | None = None
        self.group: Group | None = None
        self._lanes: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def lanes(self) -> np.ndarray:
        """Indices of the active lanes (computed once per mask)."""
        cached = self._lanes
        if cached is None or cached[0] is not self.mask:
            cached = self._lanes = (self.mask, np.flatnonzero(self.mask))
        return cached[1]

    def error(self, message: str, lanes=None, hint: str | None = None,
              code: str | None = None) -> InterpretError:
        """A located error at the running op; ``lanes`` (indices or a mask) are named."""
        if lanes is not None:
            message = f"{message} ({self.wave.describe(lanes)})"
        return InterpretError(message, self.op, hint=hint, code=code)

    def poll(self, what: str = "") -> Poll:
        return Poll(what or f"{self.op.name if self.op else 'a test'} to succeed")

    def wait_until(self, condition: Callable[[], bool], what: str) -> WaitUntil:
        return WaitUntil(condition, what)

    def event(self) -> None:
        """Note that something another group may be waiting for happened."""
        self.state.events += 1


@dataclass(eq=False)
class Group:
    ctx: LaneContext
    gen: Iterator[Any]
    parent: "Group | None" = None
    index: int = 0
    resume: Any = None
    waiting: Wait | Poll | None = None
    poll_version: tuple[int, int] | None = None
    pending: int = 0
    results: list[Any] = field(default_factory=list)


class Engine:
    """Runs the kernel body over one wave (`run`), with the shared memory layout, the
    statistics sink and the step budget given by the executor."""

    def __init__(self, wave: Wave, mem, stats, *, steps: list[int], max_steps: int):
        self.wave = wave
        self.mem = mem
        self.stats = stats
        self.state = RunState(wave)
        self.env: dict[SSAValue, Any] = {}
        self.impls = impl_table.load_impls()
        self._steps = steps
        self.max_steps = max_steps
        self.has_deferred = False
        self._may_block: dict[int, tuple[Region, bool]] = {}
        self._groups: list[Group] = []

    # ---- scheduling ----
    def run(self, region: Region, args: tuple) -> tuple:
        """Run ``region`` (the kernel body) for every lane of the wave."""
        root_ctx = LaneContext(self, self.wave.full_mask)
        root = Group(root_ctx, self.run_region(root_ctx, region, args, self.wave.full_mask))
        root_ctx.group = root
        ready: deque[Group] = deque([root])
        blocked: list[Group] = []
        self._groups = [root]
        result: tuple = ()
        idle_rounds = 0
        while ready or blocked:
            if not ready and not self._wake(blocked, ready):
                raise self._deadlock(blocked)
            g = ready.popleft()
            try:
                item = g.gen.send(g.resume)
            except StopIteration as stop:
                self._groups.remove(g)
                if g.parent is None:
                    result = stop.value
                    continue
                parent = g.parent
                parent.results[g.index] = stop.value
                parent.pending -= 1
                if parent.pending == 0:
                    parent.resume = parent.results
                    ready.append(parent)
                continue
            g.resume = None
            if isinstance(item, Fork):
                g.pending = len(item.branches)
                g.results = [None] * len(item.branches)
                for i, (branch, mask, bargs) in enumerate(item.branches):
                    ctx = LaneContext(self, mask)
                    child = Group(ctx, self.run_region(ctx, branch, bargs, mask), g, i)
                    ctx.group = child
                    self._groups.append(child)
                    ready.append(child)
            elif isinstance(item, Poll):
                version = (self.mem.version, self.state.events)
                idle = g.poll_version == version
                g.poll_version = version
                g.waiting = item
                # a poller that saw nothing change lets the blocked groups whose wait now holds
                # run (else pollers that are always ready would starve them: a livelock)
                woken = idle and self._wake(blocked, ready)
                if idle and not woken and all(self._idle(x, version) for x in ready):
                    idle_rounds += 1
                    if idle_rounds > MAX_IDLE_POLLS:
                        raise self._deadlock([g, *ready, *blocked])
                else:
                    idle_rounds = 0
                ready.append(g)
            elif isinstance(item, Wait):
                g.waiting = item
                g.poll_version = None
                if item.satisfied():
                    g.waiting = None
                    ready.append(g)
                else:
                    blocked.append(g)
            else:  # pragma: no cover - an implementation yielded something else
                raise InterpretError(f"an implementation yielded {item!r}", g.ctx.op)
        return result

    @staticmethod
    def _wake(blocked: list[Group], ready: deque[Group]) -> bool:
        """Move the blocked groups whose wait holds to ``ready``; whether there were any."""
        woken = [g for g in blocked if g.waiting.satisfied()]
        for g in woken:
            blocked.remove(g)
            g.waiting = None
            ready.append(g)
        return bool(woken)

    @staticmethod
    def _idle(g: Group, version) -> bool:
        return isinstance(g.waiting, Poll) and g.poll_version == version

    def _deadlock(self, stuck: list[Group]) -> InterpretError:
        lines = []
        for g in stuck:
            what = g.waiting.describe() if isinstance(g.waiting, Wait) else \
                (g.waiting.what if isinstance(g.waiting, Poll) else "nothing")
            where = g.ctx.op
            from tirx_mlir.diagnostics import format_location

            at = f"{where.name} at {format_location(where)}" if where is not None else "?"
            lines.append(f"{self.wave.describe(g.ctx.mask)} wait at {at} for {what}")
        first = stuck[0].ctx.op
        return InterpretError(
            "deadlock, no thread can make progress: " + "; ".join(lines), first,
            code="deadlock",
            hint="every thread a barrier counts must reach it, and every wait needs an arrive "
                 "or a copy that completes its phase")

    def groups_holding(self, lane: int) -> list[Group]:
        """The live groups whose lanes include ``lane`` (for error messages)."""
        return [g for g in self._groups if g.ctx.mask[lane]]

    # ---- regions ----
    def may_block(self, region: Region) -> bool:
        """Whether running ``region`` can yield to the scheduler (it holds a blocking op)."""
        entry = self._may_block.get(id(region))
        if entry is None or entry[0] is not region:
            blocks = any(self.impls.get(type(op)) is not None and
                         self.impls[type(op)].kind == impl_table.BLOCKING
                         for op in region.walk())
            entry = self._may_block[id(region)] = (region, blocks)
        return entry[1]

    def run_region(self, ctx: LaneContext, region: Region, args: tuple,
                   mask: np.ndarray) -> Iterator[Any]:
        """Run a single-block region for the lanes of ``mask``; returns the operands of its
        terminator (``scf.yield``, ``scf.condition``, ``tirx.return``)."""
        block = region.blocks.first
        if block is None:
            return ()
        if block.next_block is not None:
            raise InterpretError("the SIMT interpreter runs single-block regions only (structured "
                                 "control flow: scf)", region.parent_op())
        return (yield from self.run_block(ctx, block, args, mask))

    def run_block(self, ctx: LaneContext, block: Block, args: tuple,
                  mask: np.ndarray) -> Iterator[Any]:
        env = self.env
        for arg, value in zip(block.args, args):
            env[arg] = value
        n_ops = len(block.ops)
        lanes = self.stats.count_block(n_ops, mask, block, self.wave)
        self.charge(n_ops * (1 + lanes // LANES_PER_STEP), block.parent)
        impls = self.impls
        for op in block.ops:
            entry = impls.get(type(op))
            if entry is None:
                raise InterpretError(
                    "the SIMT interpreter has no implementation for this op", op,
                    hint="CUDA-level kernels use the cuda, ptx, nvshmem, arith, math and scf "
                         "dialects")
            args_ = [env[v] for v in op.operands]
            if self.has_deferred and not getattr(entry.fn, "takes_deferred", False):
                args_ = [self._read(a, op, ctx) if type(a) is Deferred else a for a in args_]
            ctx.mask = mask
            ctx.op = op
            kind = entry.kind
            try:
                if kind == impl_table.PLAIN:
                    results = entry.fn(ctx, op, args_)
                elif kind == impl_table.REGION:
                    results = yield from entry.fn(ctx, op, args_)
                    ctx.mask = mask
                    ctx.op = op
                else:
                    results = yield from entry.fn(ctx, op, args_)
                    ctx.mask = mask
                    ctx.op = op
            except Exception as err:  # noqa: BLE001 - whatever failed, name the op
                from tirx_mlir.interpreter.core import located_error

                raise located_error(err, op)  # noqa: B904 - it sets the cause
            if results is TERMINATOR:
                return args_
            for res, value in zip(op.results, results):
                env[res] = value
        return ()

    def charge(self, steps: int, region: Region) -> None:
        """Take ``steps`` from the run's budget; past it, the located step-budget error."""
        self._steps[0] -= steps
        if self._steps[0] < 0 and self.max_steps > 0:
            from tirx_mlir.interpreter.core import step_budget_error

            raise step_budget_error(region, self.max_steps)

    def _read(self, value: Deferred, op: Operation, ctx: LaneContext):
        if value.ready:
            return value.value
        ctx.op = op
        raise ctx.error(f"reads a value before {value.what}", ctx.mask, code="async")

    def defer(self, value: np.ndarray, what: str) -> Deferred:
        """A `Deferred` value (see values.py); reading it before `Deferred.deliver` fails."""
        self.has_deferred = True
        return Deferred(value, what)


TERMINATOR = object()
"""What a terminator's implementation returns: the block ends with its operands."""
