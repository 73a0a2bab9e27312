"""What the asynchronous operations of one wave share: mbarriers, copies in flight, the shared
bytes they own, and the check that no thread touches those bytes too early.

* **mbarriers** (PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier"):
  an `MBarrier` per initialised 8-byte object (CTA, shared offset) with its current phase, the
  arrivals still pending in it and the transaction bytes still expected (``tx``, which may be
  negative for a while: a copy may complete its bytes before the ``expect_tx``). A phase
  completes when both reach zero; the pending count is then reset to the init count.
* **copies in flight** (`Flight`): each execution of a copy op that writes shared memory
  asynchronously (``cp.async``, ``cp.async.bulk``, TMA loads) snapshots its source at issue and
  records per *unit* (one issuing lane and one destination CTA) what it will write. A unit
  lands (its bytes are written) when its lane's ``cp.async.wait_group`` covers it, or, for a
  copy that completes on an mbarrier (its bytes, or its ``cp.async.mbarrier.arrive``), when a
  thread tests that mbarrier's current phase and the phase needs it (`land_for_barrier`:
  landing stops once the phase completes): data arrives as late as the program allows, never
  before its wait. A ``cp.async``'s landing is its issuing thread's write for the racecheck; a
  TMA or bulk copy is checked as its issuer's write at issue and recorded at its landing,
  stamped with the mbarrier phase its bytes complete (checks/races.py). A copy on an mbarrier
  still in flight when the wave ends is an error (`check_landed_at_exit`): its mbarrier's phase
  completed without its bytes (it expected fewer than the copies sent: a wrong expect_tx or
  multicast mask), or nobody waited.
* **ties** (`Tie`): a ``cp.async.mbarrier.arrive`` whose lane still has cp.async units in
  flight arrives once they have all landed, whichever wait lands them. The bookkeeping is
  incremental: each flight lists, per unit, the ties waiting for it and each tie counts its
  units still in flight, so a landing touches only the ties of the units it lands (the ties
  that complete then arrive in arrival order); flights are indexed by the mbarriers they
  complete on and ties by their mbarrier, so a test of a phase visits only its own copies.
* **owned bytes** (`PendingBytes`): the destination bytes of copies in flight (reading or
  writing one is an error), the source bytes of bulk stores not yet past their
  ``cp.async.bulk.wait_group.read`` (writing one is an error), and the 8 bytes of every live
  mbarrier (a plain access is an error; PTX allows only mbarrier ops on them until
  ``mbarrier.inval``). `AsyncObserver` checks every shared access against them.

The state lives in ``ctx.state.ext[KEY]`` (`state_of`), one per wave.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from tirx_mlir.backends.cuda.interpreter import executor
from tirx_mlir.backends.cuda.interpreter.checks.proxies import check_async_write
from tirx_mlir.backends.cuda.interpreter.memory import shared_name
from tirx_mlir.backends.cuda.interpreter.tensor_core.wgmma_reads import \
    check_write as check_wgmma_write
from tirx_mlir.diagnostics import format_location
from tirx_mlir.interpreter.runtime import InterpretError

KEY = "async"


def where(op) -> str:
    """``file:line:col (op name)`` of an op, for messages that point at another op."""
    return f"{op.name} at {format_location(op)}"


# --- mbarriers ----------------------------------------------------------------------------------


@dataclass(eq=False)
class MBarrier:
    """One initialised mbarrier object."""

    cta: int
    offset: int
    count: int
    init_op: object
    phase: int = 0
    """The current (incomplete) phase; phases 0 .. phase-1 have completed."""
    pending: int = 0
    tx: int = 0

    def __post_init__(self) -> None:
        self.pending = self.count

    def name(self, engine) -> str:
        return f"the mbarrier at {shared_name(engine, self.cta, self.offset)}"

    def describe_phase(self, engine) -> str:
        return f"phase {self.phase} (parity {self.phase % 2}) of {self.name(engine)}"

    def pending_text(self) -> str:
        return (f"{self.pending} of {self.count} arrivals and {self.tx} transaction bytes "
                f"pending")

    def arrive(self, ctx, lane: int, count: int = 1) -> int:
        """Count ``count`` arrivals of ``lane``; returns the phase they arrived in."""
        if count > self.pending:
            raise ctx.error(
                f"arrives on {self.name(ctx.engine)} in phase {self.phase}, which has no "
                f"arrivals left to count ({self.pending} pending of {self.count}, {self.tx} "
                f"transaction bytes pending)", [lane], code="mbarrier",
                hint="the init count must equal the arrivals of one phase")
        phase = self.phase
        self.pending -= count
        self._maybe_complete(ctx)
        return phase

    def expect_tx(self, ctx, nbytes: int) -> None:
        self.tx += nbytes
        ctx.event()

    def complete_tx(self, ctx, nbytes: int) -> None:
        self.tx -= nbytes
        self._maybe_complete(ctx)

    def _maybe_complete(self, ctx) -> None:
        ctx.event()
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count

    def completed(self, parity: int) -> bool:
        """Whether the phase of ``parity`` (the current one or the one before) has completed."""
        return self.phase % 2 != parity % 2


# --- owned shared bytes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Owner:
    """Who owns some shared bytes: an op and its issuing lane, and what releases them."""

    op: object
    lane: int
    until: str


class LaneOwners:
    """The owners of a copy's units, one per issuing lane: ``Owner(op, lanes[i], until)``,
    made when an error names one (a copy has thousands of units; few are ever named)."""

    def __init__(self, op: object, lanes: np.ndarray, until: str):
        self.op, self.lanes, self.until = op, lanes, until

    def __len__(self) -> int:
        return len(self.lanes)

    def __getitem__(self, i: int) -> Owner:
        return Owner(self.op, int(self.lanes[i]), self.until)


class PendingBytes:
    """A per-byte count over the wave's shared arenas, with the last owner of each byte.

    Bytes are addressed flat (``cta * arena bytes + offset``): numpy's ``ufunc.at`` and fancy
    indexing with a tuple of index arrays are several times slower than on one flat index."""

    def __init__(self, shape: tuple[int, int]):
        self.shape = shape
        self.count: np.ndarray | None = None
        self.owner: np.ndarray | None = None
        self.owners: list[Owner | LaneOwners] = []
        """The owners added, each an `Owner` or a `LaneOwners` (several, by position)."""
        self._firsts: list[int] = []
        """The owner number of each entry of ``owners``' first owner."""
        self._next = 0
        self.total = 0
        self._scratch: np.ndarray | None = None
        """Per byte, scratch for `_count`'s test for repeated bytes."""

    def _flat(self, cta: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        return np.asarray(cta, np.int64) * self.shape[1] + np.asarray(offsets, np.int64)

    def _count(self, flat: np.ndarray, step: int) -> None:
        """``count[flat] += step`` once per occurrence of each byte."""
        counts = self.count.reshape(-1)
        if flat.size < 2 or bool((flat[1:] > flat[:-1]).all()):
            counts[flat] += step  # distinct bytes: the same as ufunc.at
            return
        # unsorted (a swizzled box): distinct when each byte's slot keeps its own position
        if self._scratch is None:
            self._scratch = np.empty(counts.size, dtype=np.int64)
        order = np.arange(flat.size)
        self._scratch[flat] = order
        if bool((self._scratch[flat] == order).all()):
            counts[flat] += step
        else:
            np.add.at(counts, flat, step)

    def _flat_of(self, cta, offsets) -> np.ndarray:
        """The flat byte numbers of ``(cta, offsets)`` (broadcast), 1-D."""
        flat = self._flat(cta, offsets)
        if flat.shape != np.shape(offsets):
            flat = np.broadcast_to(flat, np.broadcast(cta, offsets).shape)
        return flat.ravel()

    def add(self, cta: np.ndarray, offsets: np.ndarray, owners: list[Owner] | LaneOwners,
            owner_of: np.ndarray | None = None) -> None:
        """Own the bytes ``(cta, offsets)``; byte i by ``owners[owner_of[i]]`` (default: the
        only owner)."""
        if self.count is None:
            self.count = np.zeros(self.shape, dtype=np.int32)
            self.owner = np.full(self.shape, -1, dtype=np.int32)
        first = self._next
        if isinstance(owners, LaneOwners):
            self.owners.append(owners)
            self._firsts.append(first)
        else:
            for k, owner in enumerate(owners):
                self.owners.append(owner)
                self._firsts.append(first + k)
        self._next += len(owners)
        flat = self._flat_of(cta, offsets)
        self._count(flat, 1)
        self.owner.reshape(-1)[flat] = first + (0 if owner_of is None else owner_of)
        self.total += len(offsets)

    def release(self, cta: np.ndarray, offsets: np.ndarray) -> None:
        self._count(self._flat_of(cta, offsets), -1)
        self.total -= len(offsets)

    def owner_number(self, number: int) -> Owner:
        """The owner given number ``number`` (counted over every owner added, in order)."""
        k = bisect_right(self._firsts, number) - 1
        entry = self.owners[k]
        return entry[number - self._firsts[k]] if isinstance(entry, LaneOwners) else entry

    def hit(self, cta: np.ndarray, offsets: np.ndarray, nbytes: int):
        """(access index, byte offset, owner) of the first owned byte accessed, or None."""
        if self.total <= 0:
            return None
        span = offsets[:, None] + np.arange(nbytes)
        owned = self.count.reshape(-1)[self._flat(cta[:, None], span)] > 0
        if not owned.any():
            return None
        i, j = np.argwhere(owned)[0]
        offset = int(span[i, j])
        return int(i), offset, self.owner_number(int(self.owner[cta[i], offset]))


# --- copies in flight ---------------------------------------------------------------------------


@dataclass(eq=False)
class Flight:
    """One execution of an asynchronous copy into shared memory (see the module docstring)."""

    op: object
    lane: np.ndarray
    """(U,) the issuing lane of each unit."""
    cta: np.ndarray
    """(U,) its destination CTA."""
    bar: np.ndarray
    """(U,) the shared offset (in ``cta``) of the mbarrier whose transaction bytes it completes,
    -1 for none."""
    group: np.ndarray
    """(U,) the issuing lane's cp.async group it belongs to, -1 for none."""
    tx: np.ndarray
    """(U,) bytes it writes."""
    byte_unit: np.ndarray
    byte_off: np.ndarray
    data: np.ndarray
    """(N,) per written byte: its unit, its offset in the unit's CTA, its value."""
    done: np.ndarray = None  # type: ignore[assignment]
    waiters: dict = None  # type: ignore[assignment]
    """Unit number -> the `Tie`s still waiting for that unit (filled by `AsyncState.tie`)."""

    def __post_init__(self) -> None:
        self.done = np.zeros(len(self.lane), dtype=bool)
        self.waiters = {}
        self.is_cp = bool((self.group >= 0).any())
        """Whether it has cp.async units (a cp.async flight has only such units)."""
        self.has_bar = bool((self.bar >= 0).any())
        self.byte_cta = self.cta[self.byte_unit]
        self.byte_lane = self.lane[self.byte_unit]
        """(N,) per written byte: its unit's CTA and issuing lane."""
        self.starts = None
        """Where each unit's bytes start (and, last, end) when the bytes are in unit order:
        unit u's are ``starts[u]:starts[u + 1]``."""
        if self.byte_unit.size < 2 or bool((self.byte_unit[1:] >= self.byte_unit[:-1]).all()):
            self.starts = np.searchsorted(self.byte_unit, np.arange(len(self.lane) + 1)).tolist()

    def byte_selection(self, units: np.ndarray, which: list[int]):
        """The bytes of ``units`` (a mask; ``which`` its unit numbers): a slice for one unit
        whose bytes are contiguous, else a mask over the bytes."""
        if len(which) == 1 and self.starts is not None:
            return slice(self.starts[which[0]], self.starts[which[0] + 1])
        return units[self.byte_unit]

    def bar_keys(self, units: np.ndarray | None = None) -> set[tuple[int, int]]:
        """The mbarriers ``(cta, offset)`` the units (a mask; default all) complete on."""
        if not self.has_bar:
            return set()
        sel = self.bar >= 0 if units is None else units & (self.bar >= 0)
        if not sel.any():
            return set()
        return set(zip(self.cta[sel].tolist(), self.bar[sel].tolist()))


@dataclass(eq=False)
class Tie:
    """A ``cp.async.mbarrier.arrive``: an arrival on ``key`` once the units complete."""

    lane: int
    key: tuple[int, int]
    units: list[tuple[Flight, np.ndarray]]
    seq: int = 0
    """Its number among the wave's ties: ties complete in this (arrival) order."""
    left: int = 0
    """Units not landed yet; the arrival happens when it reaches zero."""
    which: list = field(default_factory=list)
    """Per entry of ``units``: its unit numbers."""


@dataclass(eq=False)
class BulkRead:
    """Shared bytes a bulk store still reads, until its bulk group completes."""

    lane: int
    group: int
    cta: np.ndarray
    offsets: np.ndarray


class AsyncState:
    """The asynchronous state of one wave (see the module docstring)."""

    def __init__(self, engine):
        self.engine = engine
        shape = engine.mem.arena.shape
        self.barriers: dict[tuple[int, int], MBarrier] = {}
        self.flights: dict[Flight, None] = {}
        """The copies in flight, in issue order (a dict: ordered, O(1) removal)."""
        self.on_bar: dict[tuple[int, int], dict[Flight, None]] = {}
        """Per mbarrier: the flights with units completing on it, maybe landed (pruned when
        a landing finds none left), in issue order."""
        self.cp_flights: dict[Flight, None] = {}
        """The flights with cp.async units (a group), in issue order."""
        self.ties: dict[Tie, None] = {}
        """The pending ties, in arrival order."""
        self.ties_on: dict[tuple[int, int], dict[Tie, None]] = {}
        """The pending ties per mbarrier, in arrival order."""
        self._tie_seq = 0
        self.bulk_reads: list[BulkRead] = []
        self.landing = PendingBytes(shape)
        self.reading = PendingBytes(shape)
        self.guarded = PendingBytes(shape)
        L = engine.wave.L
        self.cp_groups = np.zeros(L, dtype=np.int64)
        """Per lane: cp.async groups committed so far (the open group's number)."""
        self.bulk_groups = np.zeros(L, dtype=np.int64)

    # ---- mbarriers ----
    def barrier(self, ctx, cta: int, offset: int) -> MBarrier:
        bar = self.barriers.get((cta, offset))
        if bar is None:
            raise ctx.error(
                f"uses an mbarrier at {shared_name(ctx.engine, cta, offset)} that is not "
                f"initialised (or was invalidated)", code="mbarrier",
                hint="initialise it with ptx.mbarrier_init (and a barrier before other threads "
                     "use it)")
        return bar

    # ---- copies ----
    def issue(self, ctx, flight: Flight, until: str) -> None:
        """Start ``flight``: its destination bytes are owned until they land."""
        for bar_off, cta in {(int(b), int(c)) for b, c in zip(flight.bar, flight.cta)
                             if b >= 0}:
            self.barrier(ctx, cta, bar_off)
        # the copy may land at once: its bytes must not be a pending wgmma's operands
        check_wgmma_write(ctx, flight.byte_cta, flight.byte_off, flight.byte_lane)
        if not flight.is_cp:  # a TMA or bulk copy: the async proxy writes
            check_async_write(ctx, flight.byte_cta, flight.byte_off, flight.byte_lane)
            for hook in hooks(ctx, "on_copy_issue"):
                hook(ctx, flight, flight.byte_cta, flight.byte_off, flight.byte_lane)
        owners = LaneOwners(flight.op, flight.lane, until)
        self.landing.add(flight.byte_cta, flight.byte_off, owners, flight.byte_unit)
        self.flights[flight] = None
        for key in flight.bar_keys():
            self.on_bar.setdefault(key, {})[flight] = None
        if flight.is_cp:
            self.cp_flights[flight] = None

    def land(self, ctx, flight: Flight, units: np.ndarray) -> None:
        """Write the bytes of ``units`` (a bool mask over the flight's units, not done)."""
        units = units & ~flight.done
        which = np.flatnonzero(units).tolist()
        if not which:
            return
        sel = flight.byte_selection(units, which)
        cta = flight.byte_cta[sel]
        off = flight.byte_off[sel]
        self.engine.mem.arena[cta, off] = flight.data[sel]
        self.engine.mem.version += 1
        self.landing.release(cta, off)
        if flight.is_cp:
            self._report_cp_async_write(ctx, flight, sel, cta, off)
        else:
            self._report_async_proxy_write(ctx, cta, off)
            self._report_copy_landing(ctx, flight, units, sel)
        flight.done |= units
        ctx.event()
        ready = self._landed_units(flight, units, which)
        if flight.done.all():
            del self.flights[flight]
            self.cp_flights.pop(flight, None)
            for hook in hooks(ctx, "on_copy_landed"):
                hook(flight)
        for u in np.flatnonzero(units & (flight.bar >= 0)) if flight.has_bar else ():
            bar = self.barriers.get((int(flight.cta[u]), int(flight.bar[u])))
            if bar is None:
                raise ctx.error(f"a copy ({where(flight.op)}) completes on an mbarrier at "
                                f"{shared_name(ctx.engine, int(flight.cta[u]), int(flight.bar[u]))}"
                                f" that was invalidated while the copy was in flight",
                                code="mbarrier")
            bar.complete_tx(ctx, int(flight.tx[u]))
        self._arrive_ties(ctx, ready)

    def _landed_units(self, flight: Flight, units: np.ndarray, which: list[int]) -> list[Tie]:
        """Index upkeep after ``units`` of ``flight`` landed: drop the flight from the
        mbarriers none of whose units it still has in flight; count the units off the ties
        waiting for them. Returns the ties that now have every unit landed."""
        for key in flight.bar_keys(units):
            if not ((flight.cta == key[0]) & (flight.bar == key[1]) & ~flight.done).any():
                self.on_bar[key].pop(flight, None)
        if not flight.waiters:
            return []
        ready = []
        for u in which:
            for tie in flight.waiters.pop(u, ()):
                tie.left -= 1
                if tie.left == 0:
                    ready.append(tie)
        return ready

    def _arrive_ties(self, ctx, ready: list[Tie]) -> None:
        """The arrivals of the ties whose units all landed, in arrival order (a tie on an
        mbarrier invalidated meanwhile is dropped: the inval refuses that while ties wait)."""
        for tie in sorted(ready, key=lambda t: t.seq):
            del self.ties[tie]
            del self.ties_on[tie.key][tie]
            bar = self.barriers.get(tie.key)
            if bar is not None:
                report_arrivals(ctx, [(bar, bar.arrive(ctx, tie.lane), tie.lane)])

    def _report_cp_async_write(self, ctx, flight: Flight, sel, cta, off) -> None:
        """Tell the racecheck that the landing ``cp.async`` bytes are their issuing threads'
        writes now: readers in other threads must be ordered after the issuer's wait. (A TMA
        or bulk copy's bytes are not: the threads its mbarrier orders after the landing need
        not include the issuer, as with a multicast into a peer CTA.)"""
        hooks = [obs.on_async_write for obs in ctx.mem.observers
                 if hasattr(obs, "on_async_write")]
        if not hooks:
            return
        lanes = flight.byte_lane[sel]
        for hook in hooks:
            hook(ctx, cta, off, lanes, flight.op)

    def _report_copy_landing(self, ctx, flight: Flight, units, sel) -> None:
        """Tell the racecheck that bytes of a TMA or bulk copy land now, completing on their
        mbarriers' current phases (before the ``complete_tx`` that may complete them): the
        waiters of those phases are ordered after the copy's writes."""
        found = hooks(ctx, "on_copy_landing")
        if not found:
            return
        for cta, bar_off in flight.bar_keys(units):
            bar = self.barriers.get((cta, bar_off))
            if bar is None:
                continue  # invalidated in flight: land() raises
            mine = (units & (flight.cta == cta) & (flight.bar == bar_off))[flight.byte_unit]
            for hook in found:
                hook(ctx, flight, bar, bar.phase, flight.byte_cta[mine], flight.byte_off[mine],
                     flight.byte_lane[mine])

    @staticmethod
    def _report_async_proxy_write(ctx, cta, off) -> None:
        """Tell the proxy check (checks/proxies.py) that a TMA or bulk copy's bytes landed: their
        last write went through the async proxy, which a later wgmma or bulk store reads
        without a proxy fence."""
        for obs in ctx.mem.observers:
            hook = getattr(obs, "on_async_proxy_write", None)
            if hook is not None:
                hook(cta, off)

    def land_groups(self, ctx, lanes: np.ndarray, limit: np.ndarray) -> None:
        """Land the cp.async units of ``lanes`` whose group is below ``limit`` (per lane)."""
        bound = np.full(self.engine.wave.L, -1, dtype=np.int64)
        bound[lanes] = limit[lanes]
        for flight in list(self.cp_flights):
            units = (flight.group >= 0) & (flight.group < bound[flight.lane])
            self.land(ctx, flight, units)

    def land_for_barrier(self, ctx, key: tuple[int, int]) -> None:
        """Land the copies the current phase of mbarrier ``key`` awaits, and no more: the
        copies that complete on it (their transaction bytes), then the copies tied to it by
        ``cp.async.mbarrier.arrive`` in arrival order, stopping as soon as the phase completes.
        A copy the phase did not need (a count one short of the arrivals) stays in flight, so a
        read its phase's wait is taken to cover is an error, as it is a race on the hardware."""
        bar = self.barriers[key]
        phase = bar.phase
        for flight in list(self.on_bar.get(key, ())):
            if bar.phase != phase:
                return
            self.land(ctx, flight, (flight.bar == key[1]) & (flight.cta == key[0]))
        for tie in list(self.ties_on.get(key, ())):
            if bar.phase != phase:
                return
            for (flight, units), which in zip(tie.units, tie.which):
                if not flight.done[which].all():  # else land() has nothing to do
                    self.land(ctx, flight, units)

    def pending_units(self, lanes: list[int]) -> dict[int, list[tuple[Flight, np.ndarray]]]:
        """Per lane of ``lanes``: its cp.async units not yet landed, (flight, mask) in issue
        order (lanes without any are left out)."""
        want = set(lanes)
        out: dict[int, list[tuple[Flight, np.ndarray]]] = {}
        for flight in self.cp_flights:
            pending = np.flatnonzero((flight.group >= 0) & ~flight.done)
            per: dict[int, list[int]] = {}
            for u, lane in zip(pending.tolist(), flight.lane[pending].tolist()):
                if lane in want:
                    per.setdefault(lane, []).append(u)
            for lane, which in per.items():
                mask = np.zeros(len(flight.lane), dtype=bool)
                mask[which] = True
                out.setdefault(lane, []).append((flight, mask))
        return out

    def tie(self, lane: int, key: tuple[int, int],
            units: list[tuple[Flight, np.ndarray]]) -> Tie:
        """A ``cp.async.mbarrier.arrive`` of ``lane`` on ``key``, arriving once ``units``
        (each a flight and a mask of its units in flight, at least one) have landed."""
        tie = Tie(lane, key, units, self._tie_seq)
        self._tie_seq += 1
        for flight, mask in units:
            which = np.flatnonzero(mask).tolist()
            tie.which.append(which)
            for u in which:
                if not flight.done[u]:
                    flight.waiters.setdefault(u, []).append(tie)
                    tie.left += 1
        assert tie.left, "a tie waits for at least one unit in flight"
        self.ties[tie] = None
        self.ties_on.setdefault(key, {})[tie] = None
        return tie

    def in_flight(self, key: tuple[int, int]) -> bool:
        """Whether copies that complete on mbarrier ``key`` (their bytes or a tied arrival)
        are still in flight."""
        return bool(self.ties_on.get(key)) or any(
            ((f.cta == key[0]) & (f.bar == key[1]) & ~f.done).any()
            for f in self.on_bar.get(key, ()))

    # ---- bulk stores ----
    def complete_bulk(self, lanes: np.ndarray, limit: np.ndarray) -> None:
        """Release the source bytes of the bulk groups of ``lanes`` below ``limit``."""
        lane_set = set(lanes.tolist())
        for read in list(self.bulk_reads):
            if read.lane in lane_set and read.group < limit[read.lane]:
                self.reading.release(read.cta, read.offsets)
                self.bulk_reads.remove(read)


def hooks(ctx, name: str) -> list:
    """The memory observers' methods ``name`` (those that have one), bound."""
    return [getattr(obs, name) for obs in ctx.mem.observers if hasattr(obs, name)]


def report_arrivals(ctx, arrivals: list[tuple[MBarrier, int, int]]) -> None:
    """Tell the memory observers (the racecheck: a release) about arrivals, each (mbarrier,
    the phase it counted in, the arriving lane), once per mbarrier and phase."""
    found = hooks(ctx, "on_mbarrier_arrive")
    if not found or not arrivals:
        return
    groups: dict[tuple[int, int], list[int]] = {}
    bars = {}
    for bar, phase, lane in arrivals:
        groups.setdefault((id(bar), phase), []).append(lane)
        bars[id(bar)] = bar
    for (ident, phase), lanes in groups.items():
        for hook in found:
            hook(ctx, bars[ident], phase, np.array(lanes, dtype=np.int64))


def state_of(ctx) -> AsyncState:
    found = ctx.state.ext.get(KEY)
    if found is None:
        found = ctx.state.ext[KEY] = AsyncState(ctx.engine)
    return found


# --- the check on every shared access -----------------------------------------------------------


def _landing_message(verb: str, where_: str, owner: Owner, issuer: str) -> tuple[str, str]:
    return (f"{verb} {where_}, the destination of the {owner.op.name} at "
            f"{format_location(owner.op)} issued by {issuer}, before the copy has landed (it "
            f"lands at {owner.until})",
            f"wait first ({owner.until}), and order other threads after the wait with a barrier")


def _reading_message(verb: str, where_: str, owner: Owner, issuer: str) -> tuple[str, str]:
    return (f"overwrites {where_}, which the {owner.op.name} at {format_location(owner.op)} "
            f"issued by {issuer} may still be reading (until {owner.until})",
            f"wait first ({owner.until})")


def _mbarrier_message(verb: str, where_: str, owner: Owner, issuer: str) -> tuple[str, str]:
    return (f"{verb} {where_}, a live mbarrier (initialised at {format_location(owner.op)}); "
            f"only mbarrier ops may access it until {owner.until}",
            "keep the mbarrier's 8 bytes apart from data")


_CHECKS = (("landing", True, "async", _landing_message),
           ("reading", False, "async", _reading_message),
           ("guarded", True, "mbarrier", _mbarrier_message))
"""(owned bytes, whether reads are refused too, error code, message) of each check."""


def check_access(ctx, kind: str, cta: np.ndarray, offsets: np.ndarray, nbytes: int,
                 lanes: np.ndarray) -> None:
    """Raise if an access of ``kind`` ("read", "write", "atomic") by ``lanes`` touches shared
    bytes an asynchronous operation owns (see the module docstring)."""
    state = ctx.state.ext.get(KEY)
    if state is None:
        return
    engine = ctx.engine
    verb = "reads" if kind == "read" else "writes"
    for name, reads_too, code, message in _CHECKS:
        if kind == "read" and not reads_too:
            continue
        hit = getattr(state, name).hit(cta, offsets, nbytes)
        if hit is not None:
            i, offset, owner = hit
            text, hint = message(verb, shared_name(engine, int(cta[i]), offset), owner,
                                 engine.wave.thread_name(owner.lane))
            raise ctx.error(text, [int(lanes[i])], code=code, hint=hint)


class AsyncObserver:
    """Checks every plain shared access (`check_access`)."""

    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        if KEY in ctx.state.ext:
            check_access(ctx, kind, cta, offsets, nbytes, lanes)

    def on_barrier(self, ctx, scope, lanes) -> None:
        pass


def _observer(options, engine) -> AsyncObserver:
    return AsyncObserver()


if _observer not in executor.OBSERVERS:
    executor.OBSERVERS.append(_observer)


def check_landed_at_exit(engine) -> None:
    """Every copy that completes on an mbarrier has landed when the wave ends, and no mbarrier
    holds bytes no phase expected. A copy still in flight was never waited for: its mbarrier's
    phase completed without its bytes, or no thread waited; an mbarrier left with a negative
    transaction count received more bytes than its phases expected (a copy, e.g. a multicast
    to a CTA outside the group, sent it bytes no expect_tx counted)."""
    state = engine.state.ext.get(KEY)
    if state is None:
        return
    for bar in state.barriers.values():
        if bar.tx < 0:
            raise InterpretError(
                f"the kernel ends with {bar.name(engine)} in phase {bar.phase} holding "
                f"{-bar.tx} transaction bytes more than its phases expected: copies completed "
                f"bytes on it that no expect_tx counted", bar.init_op, code="mbarrier",
                hint="the bytes a phase expects must be the bytes sent to that CTA: a "
                     "multicast copy's cta_mask may name only the CTAs that expect them")
    for flight in state.flights:
        left = ~flight.done & (flight.bar >= 0)
        if not left.any():
            continue
        u = int(np.flatnonzero(left)[0])
        cta, bar = int(flight.cta[u]), int(flight.bar[u])
        raise InterpretError(
            f"the kernel ends with {int(flight.tx[left].sum())} bytes of the {where(flight.op)} "
            f"issued by {engine.wave.thread_name(int(flight.lane[u]))} still in flight into "
            f"{engine.wave.cta_name(cta)}: they complete on the mbarrier at "
            f"{shared_name(engine, cta, bar)}, whose phases completed without them",
            flight.op, code="async",
            hint="the bytes a phase expects (expect_tx) must be the bytes sent to that CTA "
                 "(check the cta_mask of multicast copies), and a thread must wait for it")


if check_landed_at_exit not in executor.EXIT_CHECKS:
    executor.EXIT_CHECKS.append(check_landed_at_exit)


# --- addresses ----------------------------------------------------------------------------------


def shared_targets(ctx, space: str, addr: np.ndarray, nbytes: int, lanes: np.ndarray,
                   align: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(CTA, arena offset) of each of ``lanes``' shared addresses ``addr[lanes]``, checked:
    ``align``-byte aligned and ``nbytes`` inside the arena (``what`` names the operand)."""
    a = addr[lanes].astype(np.int64)
    bad = a % align != 0
    if bad.any():
        raise ctx.error(f"{what} 0x{int(a[bad][0]):x} is not {align}-byte aligned",
                        lanes[bad], code="misaligned", hint=f"align it to {align} bytes")
    return ctx.mem._shared_targets(ctx, space, a, nbytes, lanes)  # noqa: SLF001 - same package


def global_bytes(ctx, addr: int, nbytes: int, lane: int, align: int = 1,
                 what: str = "the global address") -> np.ndarray:
    """The ``nbytes`` bytes of global memory at ``addr`` (a writable uint8 view), checked."""
    if addr % align:
        raise ctx.error(f"{what} 0x{addr:x} is not {align}-byte aligned", [lane],
                        code="misaligned", hint=f"align it to {align} bytes")
    mem = ctx.mem
    k = int(mem._global_targets(ctx, np.array([addr], dtype=np.int64), nbytes,  # noqa: SLF001
                                np.array([lane]))[0])
    alloc = mem.allocations[k]
    start = addr - alloc.base
    return alloc.data[start:start + nbytes]
