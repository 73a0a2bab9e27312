"""Racecheck for shared memory: hazards between threads that no barrier orders.

What compute-sanitizer's racecheck tool reports (CUDA Compute Sanitizer documentation, "Racecheck
Tool"): two accesses to the same shared byte by *different* threads, at least one a write, with no
synchronisation that orders them —

- WAW: a write after a write, RAW: a read after a write, WAR: a write after a read;
- atomics do not race with atomics (an atomic is a write for every other access);
- two lanes writing one byte in the same instruction are a WAW hazard too.

Ordering is happens-before through barriers, kept as vector clocks at two granularities so the
state stays small for big CTAs:

- per CTA, a ``warps x warps`` clock: a CTA barrier (``__syncthreads``, ``bar.sync``) or a named
  barrier joins the clocks of the warps taking part (PTX counts barrier threads in whole warps),
  then advances each one's own entry;
- per warp, a ``32 x 32`` lane clock: ``__syncwarp(mask)`` joins the masked lanes; a CTA barrier
  joins all lanes of every warp it covers;
- a cluster barrier is a CTA barrier of every CTA of the cluster and also orders accesses to a CTA's
  arena by threads of other CTAs (distributed shared memory): a warp remembers its clock at the last
  one;
- an mbarrier orders by release and acquire (mbarrier_clocks.py): an arrival releases what its warp
  knows (the warp's row, its lanes' rows, what it knows of other CTAs' warps and of landings) into
  the phase it counts in and advances the warp's and lane's own clocks; a wait that observes the
  phase complete joins the phase's clock into the waiting warp's row (and the waiting lanes'). A
  warp's knowledge of other CTAs' warps, acquired from arrivals on another CTA's mbarrier or from
  multicast copies, is kept only once such an arrival happens (``warps x cluster CTAs x warps``).

TMA and bulk copies into shared memory (``cp.async.bulk``, multicast included) are writes in two
steps: at issue, the copy is checked as a write by the issuing thread (its reads and writes since
the last ones ordered before the issue: a copy that refills a stage some reader still reads is a
WAR hazard); when it lands, each byte records it as its writer, stamped with the mbarrier and phase
its bytes complete on. A later access is ordered after that write when its warp acquired that phase
of that mbarrier (or a later one), directly or through barriers and other mbarriers, which carry
each warp's per-mbarrier knowledge of landed phases. The copy's issue clock joins the phase its
bytes complete (``complete_tx``).

An access by warp ``A`` at own clock ``e`` is ordered before a later access by warp ``B`` when
``clock[B][A] >= e`` (the join copies ``e`` to ``B``, the advance moves ``A`` past it). Each shared
byte records its last writer and its last two different readers since that write (lane, op site,
warp clock, lane clock), so a write that follows reads by many threads is checked against two of
them (the highest and lowest lane of the last read) — enough to catch a write racing with readers
in other warps, at `STATE_PER_BYTE` (49) bytes of state per byte of the arena. Everything is
vectorised over the lanes of one access; a barrier records, per lane, the clocks every lane of its
CTA already knows, so an access made before it is found ordered with two lookups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.arrays import dense_index, sorted_unique
from tirx_mlir.backends.cuda.interpreter.checks.mbarrier_clocks import Clock, PhaseClocks

READ, WRITE, ATOMIC = "read", "write", "atomic"
STATE_PER_BYTE = 3 * 4 * 4 + 1
"""Bytes of racecheck state per byte of shared memory: three records of four int32, an atomic
flag (the per-warp and per-CTA clocks come on top, but grow with threads, not memory)."""
_NONE = np.int32(-1)
"""No record (as a lane). The records keep ``~lane`` (bitwise not) in their lane field, so a
zeroed array holds no records: allocating the state writes nothing (its pages stay untouched
until an access records there)."""
_ROW = np.dtype((np.void, 16))
"""A byte's record (four int32) as one item: numpy gathers and scatters rows of a 2-D int32 array
through its generic fancy-indexing path, ~10x slower than whole 16-byte items of a 1-D array
(the values are the same bytes either way)."""


@dataclass(frozen=True)
class Hazard:
    """One reported hazard: ``first`` happened before ``second``, unordered, at ``offset``."""

    kind: str  # "WAW", "RAW" or "WAR"
    cta: int  # the arena's CTA (index in the wave)
    offset: int  # byte offset in that arena
    first_lane: int
    first_site: object  # whatever the caller passed as ``site`` (the engine: the op)
    first_access: str  # "read", "write" or "atomic"
    second_lane: int
    second_site: object
    second_access: str
    count: int  # hazardous bytes in the second access


# a byte's records: its last writer and two last readers, each (~lane, site, warp clock, lane
# clock); a landed copy's write is (~issuing lane, site, -(1 + phase), mbarrier number)
WRITER, READER1, READER2 = range(3)
_LANE, _SITE, _WCLOCK, _LCLOCK = range(4)


class SharedRaceCheck:
    """Racecheck state of the shared arenas of a wave: ``wave.W`` arenas of ``arena_bytes``.

    ``wave`` is the run's `wave.Wave` (its lane arrays ``cta``, ``warp``, ``warp_in_cta``,
    ``lane`` and its ``W``, ``T``, ``warps_per_cta``, ``n_warps``).
    """

    def __init__(self, wave, arena_bytes: int) -> None:
        self.wave = wave
        self.arena_bytes = arena_bytes
        wpc = wave.warps_per_cta
        self.warp_clocks = _fresh_clocks(wave.W, wpc)
        self.lane_clocks = _fresh_clocks(wave.n_warps, 32)
        self.cluster_join = np.full(wave.n_warps, -1, dtype=np.int32)
        self._warp = wave.warp
        self._cta = wave.cta
        self._wic = wave.warp_in_cta
        self._lane = wave.lane
        # flat index of a lane's row in the warp / lane clocks, and of its own entry there
        self._warp_row = (self._cta * wpc + self._wic) * wpc
        self._lane_row = (self._warp * 32 + self._lane) * 32
        self._own = np.ones((wave.L, 2), dtype=np.int32)  # (warp clock, lane clock)
        # a lane's clocks every other lane of its CTA knows: an access at or below both is ordered
        # before anything its CTA does now (a lane that does not exist knows everything)
        absent = ~np.isin(np.arange(wave.n_warps * 32), self._warp * 32 + self._lane)
        self.lane_clocks.reshape(-1, 32)[absent] = np.iinfo(np.int32).max
        self._floor_wclock = np.zeros(wave.L, dtype=np.int32)
        self._floor_lclock = np.zeros(wave.L, dtype=np.int32)
        self._remote = False  # whether a lane has touched another CTA's arena
        self._sites: list[object] = []
        self._site_ids: dict[int, int] = {}
        self._records = np.zeros((3, 0, 4), dtype=np.int32)  # allocated on the first access
        self._rows = self._records.view(_ROW)[..., 0]  # the records as [3, bytes] items
        self._writer_atomic = np.zeros(0, dtype=bool)
        # mbarriers: each one's phases, and per warp the phases of each whose landings it knows
        self._mbarriers: dict[object, PhaseClocks] = {}
        self._lands = np.zeros((wave.n_warps, 0), dtype=np.int32)
        self._cluster = int(np.prod(wave.cluster_dim)) if wave.cluster_dim else 1
        self._remote_known: np.ndarray | None = None
        """Per warp, what it knows of the warps of each CTA of its cluster through mbarriers
        (``[warp, CTA in cluster, warp in CTA]``), made on the first such knowledge."""
        self._landed = False  # whether a record holds a landed copy's write

    # ---- barriers -------------------------------------------------------------------------
    def barrier(self, scope: str, lanes: np.ndarray) -> None:
        """``lanes`` (wave lane indices) passed a barrier of ``scope``: "warp", "cta" or "cluster".

        "cta" is any barrier of whole warps (``bar.sync``/``barrier.cta`` named or not): it orders
        the warps of ``lanes`` in each CTA; "warp" (``__syncwarp``) orders the lanes of each warp in
        ``lanes``; "cluster" is a "cta" barrier that also orders accesses across CTAs.
        """
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return
        if scope != "warp":
            warps = sorted_unique(self._warp[lanes])
            if scope == "cluster":
                self.cluster_join[warps] = self._warp_own(warps)
            self._join_warps(lanes)
            self._join_knowledge(warps, scope)
            lanes = self._lanes_of_warps(warps)  # a barrier of warps orders all their lanes
        self._join_lanes(lanes)
        self._own[:, 0] = self.warp_clocks.reshape(-1)[self._warp_row + self._wic]
        self._own[:, 1] = self.lane_clocks.reshape(-1)[self._lane_row + self._lane]
        self._refresh_floors()

    def _refresh_floors(self) -> None:
        self._floor_wclock = self.warp_clocks.min(axis=1).reshape(-1)[self._warp]
        self._floor_lclock = self.lane_clocks.min(axis=1).reshape(-1)[self._warp * 32 + self._lane]

    def _join_knowledge(self, warps: np.ndarray, scope: str) -> None:
        """A barrier of ``warps`` also shares what they know of landings and of other CTAs'
        warps, among the warps of each CTA (of each cluster for a cluster barrier)."""
        unit = warps // self.wave.warps_per_cta
        if scope == "cluster":
            unit //= self._cluster
        if self._lands.shape[1]:
            _join_rows(self._lands, warps, unit)
        if self._remote_known is not None:
            _join_rows(self._remote_known.reshape(self.wave.n_warps, -1), warps, unit)

    def _lanes_of_warps(self, warps: np.ndarray) -> np.ndarray:
        """Every lane of the given wave warps (a CTA's last warp may be partial)."""
        cta, local = np.divmod(warps, self.wave.warps_per_cta)
        tid = local[:, None] * 32 + np.arange(32)
        return (cta[:, None] * self.wave.T + tid)[tid < self.wave.T]

    def _warp_own(self, warps: np.ndarray) -> np.ndarray:
        cta, local = np.divmod(warps, self.wave.warps_per_cta)
        return self.warp_clocks[cta, local, local]

    def _join_warps(self, lanes: np.ndarray) -> None:
        ctas, inverse = dense_index(self._cta[lanes])
        part = np.zeros((ctas.size, self.wave.warps_per_cta), dtype=bool)
        part[inverse, self._wic[lanes]] = True
        self.warp_clocks[ctas] = _join(self.warp_clocks[ctas], part)

    def _join_lanes(self, lanes: np.ndarray) -> None:
        warps, inverse = dense_index(self._warp[lanes])
        part = np.zeros((warps.size, 32), dtype=bool)
        part[inverse, self._lane[lanes]] = True
        self.lane_clocks[warps] = _join(self.lane_clocks[warps], part)

    # ---- mbarriers and the copies that complete on them ------------------------------------
    def release(self, mbarrier: object, phase: int, lanes: np.ndarray) -> None:
        """``lanes`` arrive on ``mbarrier`` (any identity of it), counted in ``phase``: the phase
        carries what their warps know (module docstring); their own clocks move on."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return
        self._phases(mbarrier).add(phase, self.knowledge(lanes))
        self._advance(lanes)

    def acquire(self, mbarrier: object, phase: int, lanes: np.ndarray) -> None:
        """``lanes`` observed ``phase`` of ``mbarrier`` complete (a successful test or try
        wait): their warps (and the lanes themselves) acquire what the phase carries, and know
        the copies that landed on it up to that phase."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return
        phases = self._phases(mbarrier)
        clock = phases.upto(phase)
        warps = sorted_unique(self._warp[lanes])
        cta, local = np.divmod(warps, self.wave.warps_per_cta)
        for src, vec in clock.warps.items():
            mine = cta == src
            self.warp_clocks[src, local[mine]] = np.maximum(self.warp_clocks[src, local[mine]],
                                                            vec)
            remote = ~mine & (cta // self._cluster == src // self._cluster)
            if remote.any():
                known = self._remote_table()
                rows = known[warps[remote], src % self._cluster]
                known[warps[remote], src % self._cluster] = np.maximum(rows, vec)
        for warp, vec in clock.lanes.items():
            mine = lanes[self._warp[lanes] == warp]
            rows = self.lane_clocks[warp, self._lane[mine]]
            self.lane_clocks[warp, self._lane[mine]] = np.maximum(rows, vec)
        lands = self._lands_for(phases.number)
        n = clock.lands.size
        lands[warps, :n] = np.maximum(lands[warps, :n], clock.lands)
        lands[warps, phases.number] = np.maximum(lands[warps, phases.number], phase + 1)
        self._refresh_floors()

    def knowledge(self, lanes: np.ndarray) -> Clock:
        """What ``lanes`` know now, as a `Clock`: their warps' rows, the lanes' own rows, what
        their warps know of other CTAs' warps and of landings."""
        lanes = np.asarray(lanes, dtype=np.int64)
        clock = Clock()
        warps, inverse = dense_index(self._warp[lanes])
        wpc = self.wave.warps_per_cta
        for i, warp in enumerate(warps.tolist()):
            cta, local = divmod(warp, wpc)
            mine = self._lane[lanes[inverse == i]]
            part = Clock({cta: self.warp_clocks[cta, local].copy()},
                         {warp: self.lane_clocks[warp, mine].max(axis=0)},
                         self._lands[warp].copy())
            if self._remote_known is not None:
                first = cta - cta % self._cluster
                for rank, vec in enumerate(self._remote_known[warp]):
                    if first + rank != cta and vec.any():
                        part.warps[first + rank] = vec.copy()
            clock.join(part)
        return clock

    def issue_copy(self, cta: np.ndarray, offsets: np.ndarray, lanes: np.ndarray,
                   site: object) -> tuple[Hazard | None, dict[int, Clock]]:
        """A TMA or bulk copy issued by ``lanes`` writes the single bytes ``(cta, offsets)``
        when it lands: check them now as the issuing threads' writes (the hazard, or None), and
        return what each issuing warp knows (``{wave warp: Clock}``, for `land_copy`). The
        issuing warps' own clocks move on: what they do after the issue is not ordered before
        the copy's waiters."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return None, {}
        self._ensure_records()
        cta = np.asarray(cta, dtype=np.int64)
        self._remote = self._remote or bool((cta != self._cta[lanes]).any())
        idx = cta * self.arena_bytes + np.asarray(offsets, np.int64)
        hazard = self._write_hazard(idx, lanes, self._site_id(site), False, self._disjoint(idx))
        issuers = _distinct_runs(lanes)
        known = {int(w): self.knowledge(issuers[self._warp[issuers] == w])
                 for w in sorted_unique(self._warp[issuers]).tolist()}
        self._advance(issuers)
        return hazard, known

    def land_copy(self, mbarrier: object, phase: int, cta: np.ndarray, offsets: np.ndarray,
                  lanes: np.ndarray, site: object, issued: dict[int, Clock]) -> None:
        """Bytes of a copy issued by ``lanes`` land now, completing on ``mbarrier`` in
        ``phase``: each records the copy as its writer, stamped with that phase, and the phase
        carries the issuing warps' clocks at issue (``issued``, from `issue_copy`)."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return
        self._ensure_records()
        phases = self._phases(mbarrier)
        idx = np.asarray(cta, np.int64) * self.arena_bytes + np.asarray(offsets, np.int64)
        rec = np.empty((lanes.size, 4), dtype=np.int32)
        rec[:, _LANE] = ~lanes
        rec[:, _SITE] = self._site_id(site)
        rec[:, _WCLOCK] = -(phase + 1)
        rec[:, _LCLOCK] = phases.number
        self._landed = True
        self._rows[WRITER][idx] = rec.view(_ROW)[:, 0]
        self._records[READER1, :, _LANE][idx] = ~_NONE
        self._records[READER2, :, _LANE][idx] = ~_NONE
        self._writer_atomic[idx] = False
        clock = Clock()
        for warp in sorted_unique(self._warp[_distinct_runs(lanes)]).tolist():
            clock.join(issued.get(warp, Clock()))
        phases.add(phase, clock)

    def _phases(self, mbarrier: object) -> PhaseClocks:
        found = self._mbarriers.get(mbarrier)
        if found is None:
            found = self._mbarriers[mbarrier] = PhaseClocks(len(self._mbarriers))
            self._lands_for(found.number)
        return found

    def _lands_for(self, number: int) -> np.ndarray:
        """The per-warp landing knowledge, with a column for mbarrier ``number``."""
        if number >= self._lands.shape[1]:
            grown = np.zeros((self.wave.n_warps, max(8, 2 * (number + 1))), dtype=np.int32)
            grown[:, :self._lands.shape[1]] = self._lands
            self._lands = grown
        return self._lands

    def _remote_table(self) -> np.ndarray:
        if self._remote_known is None:
            self._remote_known = np.zeros(
                (self.wave.n_warps, self._cluster, self.wave.warps_per_cta), dtype=np.int32)
        return self._remote_known

    def _advance(self, lanes: np.ndarray) -> None:
        """Move the own clocks of ``lanes`` (distinct) and of their warps one step on."""
        warps = sorted_unique(self._warp[lanes])
        cta, local = np.divmod(warps, self.wave.warps_per_cta)
        self.warp_clocks[cta, local, local] += 1
        self.lane_clocks[self._warp[lanes], self._lane[lanes], self._lane[lanes]] += 1
        every = self._lanes_of_warps(warps)
        self._own[every, 0] = self.warp_clocks.reshape(-1)[self._warp_row[every] +
                                                           self._wic[every]]
        self._own[lanes, 1] = self.lane_clocks.reshape(-1)[self._lane_row[lanes] +
                                                           self._lane[lanes]]

    # ---- accesses -------------------------------------------------------------------------
    def access(
        self, kind: str, cta: np.ndarray, offsets: np.ndarray, nbytes: int, lanes: np.ndarray,
        site: object,
    ) -> Hazard | None:
        """Check one access (arrays over the accessing lanes) and record it; the first hazard.

        ``cta`` is the arena each lane touches (its own CTA, or another of its cluster), ``offsets``
        the byte offsets in it, ``site`` an identity of the op reported back in a ``Hazard``.
        """
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0 or nbytes <= 0:
            return None
        self._ensure_records()
        site_id = self._site_id(site)
        cta = np.asarray(cta, dtype=np.int64)
        self._remote = self._remote or bool((cta != self._cta[lanes]).any())
        base = cta * self.arena_bytes + np.asarray(offsets, np.int64)
        # aligned, distinct starts touch disjoint bytes: no byte is touched twice by this access
        disjoint = not (base % nbytes).any() and _distinct(base)
        idx = (base[:, None] + np.arange(nbytes)).ravel() if nbytes > 1 else base
        who = np.repeat(lanes, nbytes) if nbytes > 1 else lanes
        if kind == READ:
            return self._read(idx, who, site_id, disjoint)
        return self._write(idx, who, site_id, kind == ATOMIC, disjoint)

    def group_read(self, cta: int, offsets: np.ndarray, nbytes: int, first: int, last: int,
                   site: object) -> Hazard | None:
        """A read of ``nbytes`` at each of ``offsets`` in ``cta``'s arena by threads acting as
        one (a warpgroup reading a ``wgmma.mma_async`` operand), from ``first`` to ``last``:
        checked for RAW hazards for both, as a read by every thread between them would be, at a
        fraction of its cost. Not recorded as reads: the operation reads until the
        ``wgmma.wait_group`` that retires its group, and one thread's wait retires the whole
        warpgroup's operation, which per-thread read records cannot express (a thread writing
        after its own wait would race with the record of another thread of its warpgroup). A
        write after the read is checked against the group instead
        (tensor_core/wgmma_reads.py)."""
        self._ensure_records()
        site_id = self._site_id(site)
        base = cta * self.arena_bytes + np.asarray(offsets, np.int64)
        idx = (base[:, None] + np.arange(nbytes)).ravel() if nbytes > 1 else base
        writers = self._rows[WRITER][idx]
        for lane in (first, last):
            hazard = self._first_unordered("RAW", WRITER, idx, np.full(idx.size, lane), site_id,
                                           READ, records=writers)
            if hazard is not None:
                return hazard
        return None

    def check_write(self, cta: np.ndarray, offsets: np.ndarray, lanes: np.ndarray,
                    site: object) -> Hazard | None:
        """Check single-byte writes by ``lanes`` now without recording them (a ``cp.async``
        at its issue: the bytes may land any time after it, and `record_write` records them
        when they do): the hazard with an earlier access no barrier orders, or None."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return None
        self._ensure_records()
        idx = np.asarray(cta, dtype=np.int64) * self.arena_bytes + np.asarray(offsets, np.int64)
        return self._write_hazard(idx, lanes, self._site_id(site), False, self._disjoint(idx))

    def record_write(self, cta: np.ndarray, offsets: np.ndarray, lanes: np.ndarray,
                     site: object) -> None:
        """Record single-byte writes by ``lanes`` now, unchecked: later accesses are checked
        against them. For an asynchronous copy's landing, whose bytes no thread may touch from
        its issue on (async_state.py refuses that); the landing only moves the writer's clock to
        the wait that lands it."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if lanes.size == 0:
            return
        self._ensure_records()
        cta = np.asarray(cta, dtype=np.int64)
        self._remote = self._remote or bool((cta != self._cta[lanes]).any())
        idx = cta * self.arena_bytes + np.asarray(offsets, np.int64)
        self._rows[WRITER][idx] = self._record(lanes, self._site_id(site))
        self._records[READER1, :, _LANE][idx] = ~_NONE
        self._records[READER2, :, _LANE][idx] = ~_NONE
        self._writer_atomic[idx] = False

    def _read(self, idx, who, site_id, disjoint) -> Hazard | None:
        hazard = self._first_unordered("RAW", WRITER, idx, who, site_id, READ)
        if disjoint:
            u_idx, hi, lo = idx, who, who
        else:  # record the highest and the lowest lane reading each byte
            order = np.lexsort((who, idx))
            idx, who = idx[order], who[order]
            step = idx[1:] != idx[:-1]
            first = np.concatenate(([True], step))
            last = np.concatenate((step, [True]))
            u_idx, hi, lo = idx[last], who[last], who[first]
        reader1, reader2 = self._rows[READER1], self._rows[READER2]
        single = lo == hi
        shift = u_idx[single & (self._records[READER1, :, _LANE][u_idx] != ~hi)]
        reader2[shift] = reader1[shift]
        if not single.all():
            many = ~single
            reader2[u_idx[many]] = self._record(lo[many], site_id)
        reader1[u_idx] = self._record(hi, site_id)
        return hazard

    def _write_hazard(self, idx, who, site_id, atomic, disjoint) -> Hazard | None:
        access = ATOMIC if atomic else WRITE
        hazard = None if atomic or disjoint else self._same_instruction_waw(idx, who, site_id)
        skip = self._writer_atomic if atomic else None
        hazard = hazard or self._first_unordered("WAW", WRITER, idx, who, site_id, access, skip)
        hazard = hazard or self._first_unordered("WAR", READER1, idx, who, site_id, access)
        return hazard or self._first_unordered("WAR", READER2, idx, who, site_id, access)

    def _write(self, idx, who, site_id, atomic, disjoint) -> Hazard | None:
        hazard = self._write_hazard(idx, who, site_id, atomic, disjoint)
        if not disjoint:
            order = np.lexsort((who, idx))  # one writer per byte: the last in lane order,
            idx, who = idx[order], who[order]  # as stores and atomics apply them
            last = np.concatenate((idx[1:] != idx[:-1], [True]))
            idx, who = idx[last], who[last]
        self._rows[WRITER][idx] = self._record(who, site_id)
        self._records[READER1, :, _LANE][idx] = ~_NONE
        self._records[READER2, :, _LANE][idx] = ~_NONE
        self._writer_atomic[idx] = atomic
        return hazard

    def _record(self, lanes: np.ndarray, site_id: int) -> np.ndarray:
        """The records of ``lanes`` accessing now at ``site_id``, as `_ROW` items."""
        rec = np.empty((lanes.size, 4), dtype=np.int32)
        rec[:, _LANE] = ~lanes
        rec[:, _SITE] = site_id
        rec[:, _WCLOCK:] = self._own.take(lanes, axis=0)
        return rec.view(_ROW)[:, 0]

    def _same_instruction_waw(self, idx, who, site_id) -> Hazard | None:
        order = np.lexsort((who, idx))
        idx, who = idx[order], who[order]
        clash = np.flatnonzero((idx[1:] == idx[:-1]) & (who[1:] != who[:-1]))
        if clash.size == 0:
            return None
        i = clash[0]
        return self._hazard("WAW", idx[i], who[i], site_id, WRITE, who[i + 1], site_id, WRITE,
                            sorted_unique(idx[clash]).size)

    def _first_unordered(self, kind, slot, idx, who, site_id, access, skip=None,
                         records=None) -> Hazard | None:
        """The first of the records in ``slot`` of bytes ``idx`` (``records``: gathered
        already) that is not ordered before the access of ``who``, as a hazard."""
        rec = (self._rows[slot][idx] if records is None else records).view(np.int32)
        rec = rec.reshape(-1, 4)
        prev = ~rec[:, _LANE].astype(np.int64)  # int64: numpy indexes with int32 ~10x slower
        live = (prev != _NONE) & (prev != who)
        if self._landed:  # a thread's accesses are in program order, not a copy it issued
            live |= (prev == who) & (rec[:, _WCLOCK] < 0)
        if skip is not None:
            live &= ~skip[idx]
        if not live.any():
            return None
        cand = np.flatnonzero(live)
        bad = ~self._ordered(prev[cand], rec[:, _WCLOCK][cand], rec[:, _LCLOCK][cand],
                             who[cand])
        if not bad.any():
            return None
        hits = cand[bad]
        i = hits[np.lexsort((idx[hits], who[hits]))[0]]  # the lowest thread, then byte
        first_access = READ if kind == "WAR" else (
            ATOMIC if self._writer_atomic[idx[i]] else WRITE)
        return self._hazard(kind, idx[i], prev[i], int(rec[i, _SITE]), first_access, who[i],
                            site_id, access, sorted_unique(idx[hits]).size)

    def _ordered(self, prev, prev_wclock, prev_lclock, cur) -> np.ndarray:
        """Whether an access by lane ``prev`` at the given clocks happens before ``cur``'s now
        (a landed copy's write: whether ``cur``'s warp knows the phase it completed in)."""
        landed = prev_wclock < 0 if self._landed else None
        if landed is not None and landed.any():
            out = np.empty(prev.size, dtype=bool)
            out[landed] = self._lands[self._warp[cur[landed]], prev_lclock[landed]] >= \
                -prev_wclock[landed]
            rest = ~landed
            if rest.any():
                out[rest] = self._ordered(prev[rest], prev_wclock[rest], prev_lclock[rest],
                                          cur[rest])
            return out
        if not self._remote:  # all in one CTA: most are ordered by a barrier every lane passed
            known = (prev_wclock <= self._floor_wclock[prev]) & (
                prev_lclock <= self._floor_lclock[prev])
            if known.all():
                return known
        same_warp = self._warp[prev] == self._warp[cur]
        same_cta = self._cta[prev] == self._cta[cur]
        lane_known = self.lane_clocks.reshape(-1)[self._lane_row[cur] + self._lane[prev]]
        warp_known = self.warp_clocks.reshape(-1)[self._warp_row[cur] + self._wic[prev]]
        cluster_known = self.cluster_join[self._warp[prev]] >= prev_wclock
        if self._remote_known is not None:  # known through an mbarrier of the cluster
            near = self._cta[prev] // self._cluster == self._cta[cur] // self._cluster
            rank = np.where(near, self._cta[prev] % self._cluster, 0)
            known = self._remote_known[self._warp[cur], rank, self._wic[prev]]
            cluster_known |= near & (known >= prev_wclock)
        return np.where(same_warp, lane_known >= prev_lclock,
                        np.where(same_cta, warp_known >= prev_wclock, cluster_known))

    # ---- helpers --------------------------------------------------------------------------
    def _disjoint(self, idx: np.ndarray) -> bool:
        """Whether no byte of ``idx`` repeats (a copy's thousands of bytes: marked in an array
        over the arenas and counted, cheaper than the sort of `_distinct`)."""
        if idx.size < 4096:
            return _distinct(idx)
        seen = np.zeros(self._writer_atomic.size, dtype=bool)
        seen[idx] = True
        return int(np.count_nonzero(seen)) == idx.size

    def _hazard(self, kind, flat, first_lane, first_site, first_access, second_lane, second_site,
                second_access, count) -> Hazard:
        cta, offset = divmod(int(flat), self.arena_bytes)
        return Hazard(kind, cta, offset, int(first_lane), self._sites[first_site], first_access,
                      int(second_lane), self._sites[second_site], second_access, int(count))

    def _site_id(self, site: object) -> int:
        key = id(site)
        if key not in self._site_ids:
            self._site_ids[key] = len(self._sites)
            self._sites.append(site)
        return self._site_ids[key]

    def _ensure_records(self) -> None:
        if self._records.shape[1] == 0:
            size = self.wave.W * self.arena_bytes
            self._records = np.zeros((3, size, 4), dtype=np.int32)  # no records (see _NONE)
            self._rows = self._records.view(_ROW)[..., 0]
            self._writer_atomic = np.zeros(size, dtype=bool)


def _fresh_clocks(groups: int, members: int) -> np.ndarray:
    """``groups`` clocks of ``members``: each knows its own clock 1 and 0 of the others."""
    return np.broadcast_to(np.eye(members, dtype=np.int32), (groups, members, members)).copy()


def _join_rows(table: np.ndarray, rows: np.ndarray, groups: np.ndarray) -> None:
    """Set each of ``rows`` (distinct) of ``table`` to the maximum of the rows of its group."""
    distinct, inverse = dense_index(groups)
    top = np.zeros((distinct.size, table.shape[1]), dtype=table.dtype)
    np.maximum.at(top, inverse, table[rows])
    table[rows] = top[inverse]


def _distinct_runs(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending, of an array that holds them in long runs (a copy's
    issuing lane per byte): the first of each run, then sorted."""
    if values.size < 2:
        return values
    return sorted_unique(values[np.concatenate(([True], values[1:] != values[:-1]))])


def _distinct(values: np.ndarray) -> bool:
    """Whether no value repeats (checked in order first: accesses are mostly increasing)."""
    if values.size < 2 or bool((values[1:] > values[:-1]).all()):
        return True
    ordered = np.sort(values)
    return bool((ordered[1:] != ordered[:-1]).all())


def _join(clocks: np.ndarray, part: np.ndarray) -> np.ndarray:
    """Join the rows of the participants (``part``, per group) and advance their own entries.

    ``clocks`` is ``(groups, n, n)``: row ``i`` is what member ``i`` knows of every member's clock.
    """
    n = clocks.shape[1]
    if part.all():  # the usual barrier: everyone takes part
        out = np.repeat(clocks.max(axis=1, keepdims=True), n, axis=1)
    else:
        rows = np.where(part[:, :, None], clocks, np.iinfo(np.int32).min)
        out = np.where(part[:, :, None], rows.max(axis=1, keepdims=True), clocks)
    diag = np.arange(n)
    out[:, diag, diag] += part
    return out


def hazard_message(hazard: Hazard, wave, thread, block, where) -> str:
    """The report of ``hazard`` as racecheck words it, for an error located at the second access.

    ``thread(lane)`` names a lane's thread index, ``block(cta)`` a wave CTA's block index and
    ``where(site)`` the first access's op and location.
    """
    first_cta, second_cta = int(wave.cta[hazard.first_lane]), int(wave.cta[hazard.second_lane])
    first, second = thread(hazard.first_lane), thread(hazard.second_lane)
    if not first_cta == second_cta == hazard.cta:
        first += f" of block {block(first_cta)}"
        second += f" of block {block(second_cta)}"
    more = f" ({hazard.count} bytes of this access race)" if hazard.count > 1 else ""
    return (f"potential {hazard.kind} hazard at __shared__ 0x{hazard.offset:x} in block "
            f"{block(hazard.cta)}: the {hazard.second_access} by thread {second} races with the "
            f"{hazard.first_access} by thread {first} at {where(hazard.first_site)}; no barrier "
            f"orders them{more}")
