"""The shared-memory checks as memory observers of a SIMT run (`executor.OBSERVERS`).

Memory reports every shared access (``on_shared_access``) and barriers report what they order
(``on_barrier``); per wave, the executor asks each factory here for an observer:

* `race_observer` (unless ``racecheck=False``; ``tirx-run --no-racecheck``): the racecheck of
  `races`; a hazard stops the run with a located error at the second access's op, naming both
  threads, the byte and the first access's op and location. It also hears a ``cp.async``'s
  bytes land (``on_async_write``, from async_state.py): a write by the issuing thread then,
  checked against earlier accesses at its issue (``on_cp_async_issue``, from async_copy.py);
  mbarrier arrivals and successful waits (``on_mbarrier_arrive``/``on_mbarrier_wait``, from
  mbarrier.py and async_state.py): release and acquire; a TMA or bulk copy's issue and landing
  (``on_copy_issue``/``on_copy_landing``, from async_state.py): the copy's write, checked at
  issue against what its issuer knows then, recorded when it lands on its mbarrier's phase; and
  a ``wgmma.mma_async``'s shared operands (``on_operand_read``): checked as reads by its
  warpgroup (a write after them is tensor_core/wgmma_reads.py's check);
* `shared_stats_observer`: per op, the shared requests (one per warp and access), the wavefronts
  they need and so the bank conflicts (`banks`); per block, the CTA-wide barriers it completed
  (into the run's `stats.SimtStats`).
"""

from __future__ import annotations

from tirx_mlir.backends.cuda.interpreter.checks.arrays import sorted_unique
from tirx_mlir.backends.cuda.interpreter.checks.banks import bank_wavefronts
from tirx_mlir.backends.cuda.interpreter.checks.races import (STATE_PER_BYTE, SharedRaceCheck,
                                                               hazard_message)
from tirx_mlir.diagnostics import format_location

RACE_HINT = ("order the two accesses with a barrier (cuda.sync_threads; cuda.sync_warp within a "
             "warp), or turn the check off with racecheck=False (tirx-run --no-racecheck)")
COPY_HINT = ("issue the copy after an mbarrier wait whose phase counts the arrival of every "
             "thread that accessed these bytes before (check the mbarrier's init count), or "
             "turn the check off with racecheck=False (tirx-run --no-racecheck)")

_RACE_SCOPES = {"warp": "warp", "cta": "cta", "warpgroup": "cta", "cluster": "cluster",
                "grid": "cluster"}
"""A barrier scope of the engine -> what it orders for the racecheck (a grid barrier orders every
CTA of the wave, as a cluster barrier does)."""

_BLOCK_SCOPES = ("cta", "cluster", "grid")
"""Barriers counted in ``barriers_per_block``: those every thread of a block takes part in."""


MAX_RACE_STATE = 1 << 30
"""The most racecheck state (bytes) one wave may take; a wave that needs more stops with an
error that says how to run it (no racecheck, or fewer lanes per wave)."""


class RaceObserver:
    """The racecheck over the shared arenas of one wave."""

    def __init__(self, engine) -> None:
        self.wave = engine.wave
        self.arena = engine.mem.shared_bytes
        self.check = SharedRaceCheck(self.wave, self.arena)
        self._issued: dict[object, dict] = {}
        """Per TMA or bulk copy in flight: what its issuing warps knew at issue."""

    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        self._check_size(ctx)
        hazard = self.check.access(kind, cta, offsets, nbytes, lanes, ctx.op)
        if hazard is not None:
            self._raise(ctx, hazard)

    def _raise(self, ctx, hazard, hint=RACE_HINT):
        message = hazard_message(hazard, self.wave, self._thread, self._block, _where)
        raise ctx.error(message, hint=hint, code="race")

    def on_barrier(self, ctx, scope, lanes) -> None:
        self.check.barrier(_RACE_SCOPES.get(scope, "cta"), lanes)

    def on_mbarrier_arrive(self, ctx, mbarrier, phase, lanes) -> None:
        """``lanes`` arrived on ``mbarrier`` (an `async_state.MBarrier`), counted in ``phase``."""
        self.check.release(mbarrier, phase, lanes)

    def on_mbarrier_wait(self, ctx, mbarrier, phase, lanes) -> None:
        """``lanes`` observed ``phase`` of ``mbarrier`` complete."""
        self.check.acquire(mbarrier, phase, lanes)

    def on_copy_issue(self, ctx, flight, cta, offsets, lanes) -> None:
        """A TMA or bulk copy (``flight``) is issued: its bytes ``(cta, offsets)``, written by
        ``lanes``, are checked as their writes now; what the issuers know is kept until the
        copy lands."""
        hazard, known = self.check.issue_copy(cta, offsets, lanes, ctx.op)
        self._issued[flight] = known
        if hazard is not None:
            self._raise(ctx, hazard, COPY_HINT)

    def on_copy_landing(self, ctx, flight, mbarrier, phase, cta, offsets, lanes) -> None:
        """Bytes of ``flight`` land, completing on ``mbarrier`` in ``phase``."""
        known = self._issued.get(flight, {})
        self.check.land_copy(mbarrier, phase, cta, offsets, lanes, flight.op, known)

    def on_copy_landed(self, flight) -> None:
        """Every byte of ``flight`` has landed: forget what its issuers knew."""
        self._issued.pop(flight, None)

    def on_operand_read(self, ctx, cta, offsets, nbytes, lanes) -> None:
        """A warpgroup collective (``lanes``, whole warps) reads ``nbytes`` at each of
        ``offsets`` of ``cta``'s arena (a ``wgmma.mma_async`` operand): checked for RAW
        hazards as reads by its first and last threads (races.py `group_read`)."""
        self._check_size(ctx)
        hazard = self.check.group_read(cta, offsets, nbytes, int(lanes[0]), int(lanes[-1]),
                                       ctx.op)
        if hazard is not None:
            self._raise(ctx, hazard)

    def on_cp_async_issue(self, ctx, cta, offsets, lanes) -> None:
        """A ``cp.async`` is issued: its destination bytes (one per entry) are checked as
        writes of their issuing threads ``lanes`` now (a WAR or WAW hazard with an access no
        barrier orders before the issue: the copy may write at any time after it), recorded
        when they land (`on_async_write`)."""
        self._check_size(ctx)
        hazard = self.check.check_write(cta, offsets, lanes, ctx.op)
        if hazard is not None:
            self._raise(ctx, hazard)

    def on_async_write(self, ctx, cta, offsets, lanes, site) -> None:
        """A ``cp.async``'s bytes landing now (one byte per entry), recorded as writes of their
        issuing threads ``lanes`` at the copy's op ``site``: a thread other than the issuer
        must be ordered after the landing (the issuer's wait, then a barrier) to read them."""
        self.check.record_write(cta, offsets, lanes, site)

    def _check_size(self, ctx) -> None:
        if self.wave.W * self.arena * STATE_PER_BYTE > MAX_RACE_STATE:
            raise self._too_large(ctx)

    def _too_large(self, ctx):
        wave = self.wave
        need = wave.W * self.arena * STATE_PER_BYTE
        fits = MAX_RACE_STATE // (self.arena * STATE_PER_BYTE)
        off = "turn the check off with racecheck=False (tirx-run --no-racecheck)"
        hint = off if fits == 0 else \
            f"run at most {fits * wave.T} lanes per wave (SIMT option max_wave_lanes), or {off}"
        return ctx.error(
            f"the racecheck of a wave of {wave.W} CTAs with {self.arena} bytes of shared memory "
            f"each needs {need >> 20} MiB, more than its {MAX_RACE_STATE >> 20} MiB",
            code="race", hint=hint)

    def _thread(self, lane: int) -> str:
        return "(" + ",".join(str(int(v)) for v in self.wave.thread_idx[lane]) + ")"

    def _block(self, cta: int) -> str:
        return self.wave.cta_name(cta).removeprefix("CTA ")


class SharedStatsObserver:
    """Bank conflicts per op and barriers per block, into the run's statistics."""

    def __init__(self, engine) -> None:
        self.wave = engine.wave
        self.stats = engine.stats

    def on_shared_access(self, ctx, kind, cta, offsets, nbytes, lanes) -> None:
        wave = self.wave
        report = bank_wavefronts(wave.warp[lanes], wave.lane[lanes], offsets, nbytes)
        self.stats.add(ctx.op, "shared_requests", int(report.warps.size))
        self.stats.add(ctx.op, "wavefronts", report.total_wavefronts)
        self.stats.add(ctx.op, "ideal_wavefronts", int(report.ideal.sum()))

    def on_barrier(self, ctx, scope, lanes) -> None:
        if scope not in _BLOCK_SCOPES:
            return
        wave = self.wave
        for cta in sorted_unique(wave.cta[lanes]).tolist():
            head = cta * wave.T
            key = tuple(int(v) for v in wave.block_idx[head])
            if wave.pes > 1:
                key += (int(wave.pe[head]),)
            self.stats.barriers_per_block[key] += 1


def race_observer(options, engine) -> RaceObserver | None:
    """The race check of a wave, when it is on and the kernel has shared memory to race on."""
    return RaceObserver(engine) if options.racecheck and engine.mem.shared_bytes > 0 else None


def shared_stats_observer(options, engine) -> SharedStatsObserver:
    return SharedStatsObserver(engine)


def _where(op) -> str:
    return f"{format_location(op)} ({op.name})"
