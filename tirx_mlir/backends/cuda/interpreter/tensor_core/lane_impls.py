"""Lane implementations of the tensor-core ptx ops for the SIMT interpreter: ``ptx.mma_sync``,
``ptx.ldmatrix``, ``ptx.stmatrix``, ``ptx.wgmma_fence``, ``ptx.wgmma_mma_async_ss`` / ``_rs``,
``ptx.wgmma_commit_group`` and ``ptx.wgmma_wait_group`` (registered on import; the engine
imports this module through ``impls.IMPL_MODULES``).

Each op is collective: ``mma.sync``/``ldmatrix``/``stmatrix`` over whole warps, ``wgmma`` over
whole warpgroups (4 consecutive warps of a CTA), so the running group must hold every thread of
each warp (warpgroup) it touches — otherwise a located error names the missing threads. The
warps of the group run as one batch (arrays ``(units, 32 or 128, regs)``) through the pure
functions of this package; ldmatrix/stmatrix move their rows through the checked shared memory
(bounds, 16-byte alignment, observers: race check and bank conflicts see every row).

wgmma ownership: the accumulators an ``mma_async`` returns are `values.Deferred` values; they
become readable when every warpgroup that issued it has waited on its group
(``commit_group`` closes the group, ``wait_group N`` retires all but the N newest). Reading one
earlier is a located error naming the threads; another ``mma_async`` may take them as its
accumulator (chained wgmma on the same registers is what the PTX ISA allows without a wait). A
warpgroup must execute ``wgmma.fence`` before its first ``mma_async``. The shared-memory
operands are read when the op issues; a write into them that is not ordered after the
``wait_group`` retiring the group is a located error (wgmma_reads.py).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from tirx_mlir.backends.cuda.interpreter.async_state import check_access, hooks
from tirx_mlir.backends.cuda.interpreter.checks.proxies import check_async_read
from tirx_mlir.backends.cuda.interpreter.ptx_memory_ops import space_of
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.tensor_core import ldmatrix as lm
from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma as wg
from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma_reads
from tirx_mlir.backends.cuda.interpreter.tensor_core.descriptor import MatrixDescriptor
from tirx_mlir.backends.cuda.interpreter.tensor_core.mma import mma_sync
from tirx_mlir.backends.cuda.interpreter.tensor_core.mma_fragments import MmaForm
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import as_b32
from tirx_mlir.backends.cuda.interpreter.tensor_core.wgmma_fragments import WgmmaForm
from tirx_mlir.backends.cuda.interpreter.values import Deferred, lane_dtype
from tirx_mlir.diagnostics import format_location

WARP, WARPGROUP = 32, 128
_UNIT = {WARP: "warp", WARPGROUP: "warpgroup"}


# ---- collective lanes and registers -------------------------------------------------------

def collective_lanes(ctx, size: int) -> np.ndarray:
    """The running lanes as whole units of ``size`` threads: ``(units, size)`` lane indices."""
    wave, mask = ctx.wave, ctx.mask
    if wave.T % size == 0 and mask.all():
        return np.arange(wave.L).reshape(-1, size)
    per_cta = -(-wave.T // size)
    unit = wave.cta * per_cta + wave.tid // size
    lanes = np.flatnonzero(mask)
    members = np.isin(unit, np.unique(unit[lanes]))
    name = _UNIT[size]
    if (members & ~mask).any():
        raise ctx.error(f"{ctx.op.name} is {name}-collective (.sync.aligned): every thread of "
                        f"the {name} must execute it, but some do not", lanes=members & ~mask,
                        hint=f"execute it outside divergent code, with whole {name}s")
    if len(lanes) % size or wave.T % size:
        raise ctx.error(f"{ctx.op.name} needs whole {name}s of {size} threads, but the CTA has "
                        f"{wave.T} threads", lanes=lanes)
    return lanes.reshape(-1, size)


def _bits(values: list[np.ndarray], rows: np.ndarray) -> np.ndarray:
    """b32 register operands (int32 or f32 lane values) -> ``(units, size, regs)`` int32."""
    return np.stack([as_b32(v) for v in values], axis=-1)[rows]


def _accumulators(values: list, rows: np.ndarray, dtype: str) -> np.ndarray:
    """Accumulator operands (f32/s32 values, or b32 for f16) -> ``(units, size, regs)``."""
    plain = [v.value if isinstance(v, Deferred) else v for v in values]
    if dtype == "f16":
        return _bits(plain, rows)
    return np.stack(plain, axis=-1)[rows]


def _results(ctx, types, rows: np.ndarray, regs: np.ndarray) -> list[np.ndarray]:
    """``(units, size, regs)`` -> one lane array per result, of its type's dtype (bits kept)."""
    out = []
    for i, t in enumerate(types):
        dt = lane_dtype(t)
        vals = regs[..., i]
        if vals.dtype != dt:
            vals = vals.view(dt) if vals.dtype.itemsize == dt.itemsize else vals.astype(dt)
        lane = np.zeros(ctx.wave.L, dtype=dt)
        lane[rows] = vals
        out.append(lane)
    return out


def _types(op) -> list:
    return [r.type for r in op.results]


# ---- mma.sync, ldmatrix, stmatrix ---------------------------------------------------------

@ptx_row("mma_sync")
def run_mma_sync(ctx, op, args):
    view = row_view(op, args)
    form = MmaForm.from_mods(view.mods)
    rows = collective_lanes(ctx, WARP)
    d = mma_sync(_bits(view.reads["a"], rows), _bits(view.reads["b"], rows),
                 _accumulators(view.reads["c"], rows, form.dtype), form)
    return tuple(_results(ctx, _types(op), rows, d))


def _matrix_access(ctx, op, args):
    """An ldmatrix/stmatrix: its row view, its warps ``(units, 32)``, the lanes whose addresses
    name the matrix rows ``(units, 8 * num)``, the state space, the addresses and ``.trans``."""
    view = row_view(op, args)
    rows = collective_lanes(ctx, WARP)
    row_lanes = rows[:, lm.address_lanes(lm.MATRICES[view.mods["num"]])]
    return (view, rows, row_lanes, space_of(ctx, view.mods), view.one("addr").astype(np.int64),
            view.mods.get("trans") == "trans")


@ptx_row("ldmatrix")
def run_ldmatrix(ctx, op, args):
    _, rows, readers, space, addr, trans = _matrix_access(ctx, op, args)
    data = ctx.mem.load(ctx, space, addr, np.dtype(np.uint16), lm.ROW_BYTES // 2,
                        lanes=readers.reshape(-1))
    return tuple(_results(ctx, _types(op), rows, lm.rows_to_registers(data[readers], trans)))


@ptx_row("stmatrix")
def run_stmatrix(ctx, op, args):
    view, rows, writers, space, addr, trans = _matrix_access(ctx, op, args)
    data = np.zeros((ctx.wave.L, lm.ROW_BYTES // 2), dtype=np.uint16)
    data[writers] = lm.registers_to_rows(_bits(view.reads["src"], rows), trans)
    ctx.mem.store(ctx, space, addr, data, lanes=writers.reshape(-1))
    return ()


# ---- wgmma ----------------------------------------------------------------------------------

@dataclass
class _Issue:
    """One mma_async: its result values and the warpgroups that have not yet waited on it."""

    values: list[Deferred]
    pending: set[int]


@dataclass
class _WarpgroupState:
    fenced: bool = False
    open: list[_Issue] = field(default_factory=list)
    committed: deque = field(default_factory=deque)


def _warpgroups(ctx, rows: np.ndarray) -> list[_WarpgroupState]:
    table = ctx.state.ext.setdefault("wgmma", {})
    ids = rows[:, 0] // WARPGROUP
    return [table.setdefault(int(i), _WarpgroupState()) for i in ids]


@ptx_row("wgmma_fence")
def run_wgmma_fence(ctx, op, args):
    for state in _warpgroups(ctx, collective_lanes(ctx, WARPGROUP)):
        state.fenced = True
    return ()


@ptx_row("wgmma_commit_group")
def run_wgmma_commit_group(ctx, op, args):
    rows = collective_lanes(ctx, WARPGROUP)
    reads = wgmma_reads.existing(ctx)
    for wg_id, state in zip(rows[:, 0] // WARPGROUP, _warpgroups(ctx, rows)):
        state.committed.append(state.open)
        state.open = []
        if reads is not None:
            reads.commit(int(wg_id))
    return ()


@ptx_row("wgmma_wait_group")
def run_wgmma_wait_group(ctx, op, args):
    keep = int(row_view(op, args).mods["n"])
    rows = collective_lanes(ctx, WARPGROUP)
    reads = wgmma_reads.existing(ctx)
    for lanes, wg_id, state in zip(rows, rows[:, 0] // WARPGROUP, _warpgroups(ctx, rows)):
        if reads is not None:
            reads.wait(int(wg_id), lanes, keep)
        while len(state.committed) > keep:
            for issue in state.committed.popleft():
                issue.pending.discard(int(wg_id))
                if not issue.pending:
                    for value in issue.values:
                        value.deliver()
    return ()


def _uniform(ctx, value: np.ndarray, rows: np.ndarray, what: str) -> np.ndarray:
    """One value per warpgroup of an operand every thread of the warpgroup must agree on."""
    per = value[rows]
    bad = (per != per[:, :1]).any(axis=1)
    if bad.any():
        raise ctx.error(f"the {what} differs between the threads of a warpgroup (it must be "
                        "the same in all 128)", lanes=rows[bad].reshape(-1))
    return per[:, 0]


def _operand(ctx, lanes: np.ndarray, desc: int, read):
    """``read(smem, descriptor, on_read)`` of the warpgroup ``lanes``' CTA; a byte an
    asynchronous copy still owns (not landed) is a located error naming the copy, and so is a
    byte whose generic-proxy write no proxy fence of its writer or of every thread of the
    warpgroup followed (checks/proxies.py: wgmma reads through the async proxy). The racecheck
    checks them as reads by the warpgroup (RAW); wgmma_reads.py keeps them the group's until
    the wait that retires it."""
    cta = int(ctx.wave.cta[lanes[0]])
    smem = ctx.mem.arena[cta, :ctx.mem.shared_bytes]

    def check_landed(addrs: np.ndarray, nbytes: int) -> None:
        flat = addrs.reshape(-1)
        check_access(ctx, "read", np.full(flat.size, cta), flat, nbytes,
                     np.full(flat.size, int(lanes[0])))
        check_async_read(ctx, cta, flat, nbytes, lanes)
        for hook in hooks(ctx, "on_operand_read"):  # the racecheck: reads by the warpgroup
            hook(ctx, cta, flat, nbytes, lanes)
        wgmma_reads.state(ctx).read(ctx.op, int(lanes[0]) // WARPGROUP, int(lanes[0]), cta,
                                    flat, nbytes)

    try:
        return read(smem, MatrixDescriptor.decode(desc), check_landed)
    except ValueError as err:
        raise ctx.error(f"wgmma operand: {err}", lanes=lanes,
                        hint="the descriptor's start address is (shared address >> 4) in bits "
                             "0-13; check the leading/stride byte offsets") from None


def _mma_async(ctx, op, view, a_matrices):
    form = WgmmaForm.from_mods(view.mods)
    rows = collective_lanes(ctx, WARPGROUP)
    states = _warpgroups(ctx, rows)
    unfenced = [i for i, s in enumerate(states) if not s.fenced]
    if unfenced:
        raise ctx.error("wgmma.mma_async before its warpgroup executed wgmma.fence",
                        lanes=rows[unfenced].reshape(-1),
                        hint="issue ptx.wgmma_fence first (it orders the register accesses "
                             "before the wgmma)")
    b_desc = _uniform(ctx, view.one("desc_b"), rows, "B descriptor")
    tnsp_b = int(view.mods.get("tnsp_b", 0))
    b = np.stack([_operand(ctx, lanes, int(d), lambda s, dd, ck: wg.b_matrix_from_shared(
        s, dd, form, tnsp_b, ck)) for lanes, d in zip(rows, b_desc)])
    scale_d = _uniform(ctx, view.one("scale_d"), rows, "scale-d predicate")
    d = wg.wgmma(_accumulators(view.reads["d"], rows, form.dtype), a_matrices(form, rows), b,
                 form, scale_d, int(view.mods["scale_a"]), int(view.mods["scale_b"]))
    what = (f"the wgmma.commit_group and wgmma.wait_group that retire the wgmma.mma_async at "
            f"{format_location(op)} "
            "(its accumulators belong to the tensor core until then)")
    values = [ctx.engine.defer(v, what) for v in _results(ctx, _types(op), rows, d)]
    issue = _Issue(values, {int(i) for i in rows[:, 0] // WARPGROUP})
    for state in states:
        state.open.append(issue)
    return tuple(values)


@ptx_row("wgmma_mma_async_ss")
def run_wgmma_ss(ctx, op, args):
    view = row_view(op, args)
    tnsp_a = int(view.mods.get("tnsp_a", 0))

    def a_matrices(form, rows):
        descs = _uniform(ctx, view.one("desc_a"), rows, "A descriptor")
        return np.stack([_operand(ctx, lanes, int(d), lambda s, dd, ck: wg.a_matrix_from_shared(
            s, dd, form, tnsp_a, ck)) for lanes, d in zip(rows, descs)])
    return _mma_async(ctx, op, view, a_matrices)


@ptx_row("wgmma_mma_async_rs")
def run_wgmma_rs(ctx, op, args):
    view = row_view(op, args)
    return _mma_async(ctx, op, view, lambda form, rows: wg.a_matrix_from_registers(
        _bits(view.reads["a"], rows), form))


run_wgmma_ss.takes_deferred = True  # type: ignore[attr-defined]
run_wgmma_rs.takes_deferred = True  # type: ignore[attr-defined]
"""Chained wgmma: an mma_async may take a still-owned accumulator as its ``d`` operand."""

wgmma_reads.register()
