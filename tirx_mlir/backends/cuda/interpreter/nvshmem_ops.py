"""The ``nvshmem`` ops on N simulated PEs (NVSHMEM API reference: "Remote Memory Access",
"Signaling Operations", "Point-To-Point Synchronization", "Memory Ordering").

The executor runs every PE's CTAs of a wave together (``executor.configure(interp, pes=N)``)
and gives each PE its own copy of every global buffer: the symmetric heap. A symmetric buffer's
copy on PE ``p`` is the buffer value's ``bases[p]``; the local side of a transfer is the
calling lane's own PE copy (global) or its CTA's shared array.

* ``my_pe``/``n_pes``: the lane's PE and the run's PE count;
* ``put``/``get`` (and ``nbi``): ``nelems`` elements between the local buffer and the one on
  PE ``pe``, from element 0 of each. ``group thread`` is one transfer per calling thread;
  ``group warp``/``block`` one per warp/block, which every thread of it calls with the same
  arguments (checked). Data moves at the call: a blocking put returns with it delivered, and
  an ``nbi`` one is as complete as ``nvshmem.quiet`` would make it;
* ``put_signal``: the put, then the signal (element 0 of the i64 buffer on PE ``pe``) ``set``
  to or ``add``-ed with the value, atomically; ``signal_op``: only the signal update;
* ``signal_wait_until`` / ``wait_until``: block until the local variable compares true (``eq
  ne gt ge lt le``; ``ui32`` variables compare unsigned); the engine resumes the waiters when
  memory changes and reports a deadlock naming the variable and its value if it never does;
* ``barrier_all``/``sync_all``: every PE calls it once (one thread, warp or block per PE, as
  ``group`` says) and all wait until every PE has; puts being delivered at the call, the two
  differ only in name here; ``quiet``/``fence``: ordering only, already given.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness

from tirx_mlir.backends.cuda.dialects import nvshmem
from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.async_state import (check_access, global_bytes,
                                                             shared_targets)
from tirx_mlir.backends.cuda.interpreter.engine import Wait
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl

KEY = "nvshmem"
COMPARE = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
           "lt": np.less, "le": np.less_equal}


@lane_impl(nvshmem.MyPeOp)
def run_my_pe(ctx, op, args):
    return (ctx.wave.pe.astype(np.int32),)


@lane_impl(nvshmem.NPesOp)
def run_n_pes(ctx, op, args):
    return (np.full(ctx.wave.L, ctx.wave.pes, dtype=np.int32),)


# --- who calls together -------------------------------------------------------------------------


def calling_units(ctx, op, group: str) -> list[np.ndarray]:
    """The lanes of each call: one per thread, or per warp / block, every one of which must be
    active here."""
    lanes = ctx.lanes
    wave = ctx.wave
    if group == "thread":
        return [lanes[i:i + 1] for i in range(len(lanes))]
    key = wave.warp if group == "warp" else wave.cta
    units = []
    for k in np.unique(key[lanes]).tolist():
        members = np.flatnonzero(key == k)
        missing = members[~ctx.mask[members]]
        if len(missing):
            raise ctx.error(f"{op.name} group {group} is called by "
                            f"{wave.describe(members[ctx.mask[members]])} but not by "
                            f"{wave.describe(missing)}; every thread of the {group} calls it",
                            code="nvshmem", hint="call it outside the branch, with the whole "
                                                 f"{group}")
        units.append(members)
    return units


def _uniform(ctx, op, unit: np.ndarray, values: np.ndarray, what: str) -> int:
    v = values[unit]
    if (v != v[0]).any():
        raise ctx.error(f"the threads of one {op.name} call pass different {what} values "
                        f"({int(v.min())} and {int(v.max())})", unit, code="nvshmem")
    return int(v[0])


def _pe(ctx, lane: int, pe: int) -> int:
    if not 0 <= pe < ctx.wave.pes:
        raise ctx.error(f"PE {pe} does not exist: the run has {ctx.wave.pes} PE(s)", [lane],
                        code="nvshmem", hint="run with more PEs (tirx-run --pes N, "
                                             "executor.configure(interp, pes=N))")
    return pe


# --- transfers ----------------------------------------------------------------------------------


def buffer_bytes(ctx, buf, pe: int, lane: int, nbytes: int, kind: str) -> np.ndarray:
    """The first ``nbytes`` bytes of ``buf``'s copy on PE ``pe`` (global) or of the lane's CTA
    (shared, checked against bytes an asynchronous copy owns), as a writable uint8 view. The
    race check and bank statistics do not see these bulk transfers."""
    if nbytes > buf.nbytes:
        raise ctx.error(f"a transfer of {nbytes} bytes, but {buf.name or 'the buffer'} holds "
                        f"{buf.nbytes}", [lane], code="nvshmem",
                        hint="nelems counts elements of the buffers' type")
    if buf.space == memory.GLOBAL:
        return global_bytes(ctx, int(buf.bases[pe]), nbytes, lane)
    cta, off = shared_targets(ctx, memory.SHARED, np.full(ctx.wave.L, buf.bases[0]), nbytes,
                              np.array([lane]), 1, "the shared buffer")
    start = int(off[0])
    check_access(ctx, kind, cta, off, nbytes, np.array([lane]))
    return ctx.mem.arena[int(cta[0]), start:start + nbytes]


def _transfer(ctx, op, args, remote_is_dest: bool, signal=None):
    dest, source, nelems, *rest = args
    pe_values = rest[-1]
    group = op.name_prop("group", "thread") or "thread"
    itemsize = dest.dtype.itemsize
    leaders = []
    for unit in calling_units(ctx, op, group):
        lane = int(unit[0])
        n = _uniform(ctx, op, unit, nelems, "nelems")
        pe = _pe(ctx, lane, _uniform(ctx, op, unit, pe_values, "pe"))
        own = int(ctx.wave.pe[lane])
        src_pe, dst_pe = (own, pe) if remote_is_dest else (pe, own)
        data = buffer_bytes(ctx, source, src_pe, lane, n * itemsize, "read").copy()
        buffer_bytes(ctx, dest, dst_pe, lane, n * itemsize, "write")[:] = data
        leaders.append((lane, pe))
    ctx.mem.version += 1
    if signal is not None and leaders:
        lanes = np.array([lane for lane, _ in leaders])
        pes = np.zeros(ctx.wave.L, dtype=np.int64)
        pes[lanes] = [pe for _, pe in leaders]
        signal_update(ctx, op, rest[0], rest[1], pes, lanes)
    return ()


def signal_update(ctx, op, signal, value: np.ndarray, pes: np.ndarray, lanes: np.ndarray):
    """``signal`` on PE ``pes[lane]`` set to / incremented by ``value[lane]`` for ``lanes``, in
    lane order (atomic)."""
    addr = signal.bases[pes]
    adding = op.signal_op.data == "add"

    def update(old, sel):
        v = value[lanes[sel]].astype(np.int64)
        return old + v if adding else v
    with np.errstate(over="ignore"):
        ctx.mem.atomic(ctx, memory.GLOBAL, addr, np.dtype(np.int64), update, lanes)
    ctx.event()


@lane_impl(nvshmem.PutOp)
def run_put(ctx, op, args):
    return _transfer(ctx, op, args, remote_is_dest=True)


@lane_impl(nvshmem.GetOp)
def run_get(ctx, op, args):
    return _transfer(ctx, op, args, remote_is_dest=False)


@lane_impl(nvshmem.PutSignalOp)
def run_put_signal(ctx, op, args):
    return _transfer(ctx, op, args, remote_is_dest=True, signal=True)


@lane_impl(nvshmem.SignalOpOp)
def run_signal_op(ctx, op, args):
    signal, value, pe = args
    lanes = ctx.lanes
    pes = np.zeros(ctx.wave.L, dtype=np.int64)
    for lane in lanes.tolist():
        pes[lane] = _pe(ctx, lane, int(pe[lane]))
    signal_update(ctx, op, signal, value, pes, lanes)
    return ()


# --- point-to-point waits -----------------------------------------------------------------------


class VariableWait(Wait):
    """Until the lanes' local variable compares true; describes its current values."""

    def __init__(self, ctx, op, buf, dtype, lanes: np.ndarray, holds, wanted: np.ndarray):
        self.ctx, self.op, self.buf, self.dtype, self.lanes, self.holds = \
            ctx, op, buf, dtype, lanes, holds
        self.wanted = wanted

    def values(self) -> np.ndarray:
        addr = self.buf.bases[self.ctx.wave.pe]
        return self.ctx.mem.load(self.ctx, memory.GLOBAL, addr, self.dtype, 1, self.lanes)[:, 0]

    def satisfied(self) -> bool:
        return bool(self.holds(self.values())[self.lanes].all())

    def describe(self) -> str:
        values = self.values()
        bad = self.lanes[~self.holds(values)[self.lanes]]
        pes = sorted({int(p) for p in self.ctx.wave.pe[bad]})
        seen = sorted({int(v) for v in values[bad]})
        wanted = sorted({int(v) for v in self.wanted[bad]})
        return (f"{self.buf.name or 'the variable'}[0] to be {self.op.cmp.data} "
                f"{', '.join(map(str, wanted))} (it holds {', '.join(map(str, seen))} on PE "
                f"{', '.join(map(str, pes))})")


def _wait(ctx, op, buf, value: np.ndarray, unsigned: bool):
    dtype = buf.dtype
    compare = COMPARE[op.cmp.data]
    want = value.view(np.uint32) if unsigned else value

    def holds(values):
        return compare(values.view(np.uint32) if unsigned else values, want)
    waiting = VariableWait(ctx, op, buf, dtype, ctx.lanes.copy(), holds, want)
    if not waiting.satisfied():
        yield waiting
    return waiting.values()


@lane_impl(nvshmem.SignalWaitUntilOp, blocking=True)
def run_signal_wait_until(ctx, op, args):
    signal, value = args
    seen = yield from _wait(ctx, op, signal, value.astype(np.int64), False)
    return (seen.astype(np.int64),)


@lane_impl(nvshmem.WaitUntilOp, blocking=True)
def run_wait_until(ctx, op, args):
    ivar, value = args
    t = op.ivar.type.element_type
    unsigned = isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED
    yield from _wait(ctx, op, ivar, value.astype(ivar.dtype), unsigned)
    return ()


# --- barriers -----------------------------------------------------------------------------------


class PeBarrier:
    """One generation counter over the PEs: each PE arrives once per generation."""

    def __init__(self):
        self.generation = 0
        self.arrived: dict[int, np.ndarray] = {}


class PeBarrierWait(Wait):
    def __init__(self, ctx, barrier: PeBarrier, target: int, name: str):
        self.ctx, self.barrier, self.target, self.name = ctx, barrier, target, name

    def satisfied(self) -> bool:
        return self.barrier.generation >= self.target

    def describe(self) -> str:
        missing = [p for p in range(self.ctx.wave.pes) if p not in self.barrier.arrived]
        return (f"{self.name}, which PE {', '.join(map(str, missing))} never reach"
                f"{'es' if len(missing) == 1 else ''}")


def _pe_barrier(ctx, op):
    group = op.name_prop("group", "thread") or "thread"
    barrier = ctx.state.ext.setdefault(KEY, PeBarrier())
    target = barrier.generation + 1
    for unit in calling_units(ctx, op, group):
        pe = int(ctx.wave.pe[unit[0]])
        if pe in barrier.arrived:
            first = barrier.arrived[pe]
            raise ctx.error(f"{op.name} is called on PE {pe} by {ctx.wave.describe(unit)} and "
                            f"by {ctx.wave.describe(first)} before every PE arrived; one "
                            f"{group} per PE calls it", code="nvshmem",
                            hint="call it from one block (or warp, or thread) of each PE")
        barrier.arrived[pe] = unit
    ctx.event()
    if len(barrier.arrived) == ctx.wave.pes:
        lanes = np.concatenate(list(barrier.arrived.values()))
        barrier.generation += 1
        barrier.arrived = {}
        if group != "thread":
            for obs in ctx.mem.observers:
                obs.on_barrier(ctx, "cta" if group == "block" else "warp", lanes)
    waiting = PeBarrierWait(ctx, barrier, target, f"the {op.name}")
    if not waiting.satisfied():
        yield waiting
    return ()


@lane_impl(nvshmem.BarrierAllOp, nvshmem.SyncAllOp, blocking=True)
def run_barrier_all(ctx, op, args):
    yield from _pe_barrier(ctx, op)
    return ()


@lane_impl(nvshmem.QuietOp, nvshmem.FenceOp)
def run_quiet(ctx, op, args):
    ctx.event()
    return ()
