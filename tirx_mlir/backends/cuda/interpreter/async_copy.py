"""``ptx.cp_async*`` (sm_80 asynchronous copies) on lane values, per PTX ISA "cp.async":

* ``cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}``: each active lane copies
  4, 8 or 16 bytes (both addresses aligned to cp-size); with src-size only the first src-size
  bytes are read and the rest of the destination is zero-filled. The source is read at issue;
  the destination is written when the copy *lands*;
* ``cp.async.commit_group`` closes the lane's open group (an empty group too);
  ``cp.async.wait_group N`` lands every copy of the lane's groups but the N most recent;
  ``cp.async.wait_all`` is commit_group + wait_group 0;
* ``cp.async.mbarrier.arrive{.noinc}``: an arrive-on the mbarrier once every cp.async the lane
  issued before it has completed (those copies then also land when a test of the mbarrier's
  phase needs the arrival). Without ``.noinc`` the pending count is incremented first, so the arrival does not
  count against the init count.

Until a copy lands its destination bytes are owned (async_state.py): reading or writing one is
a located error naming the reading thread, the copy's op and the issuing thread. The racecheck
checks the copy as its issuing thread's write at the issue (a read by another thread that no
barrier orders before it is a WAR hazard: the bytes may land at once) and records it when it
lands.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.async_state import (Flight, hooks, report_arrivals,
                                                             shared_targets, state_of)
from tirx_mlir.backends.cuda.interpreter.mbarrier import barrier_keys
from tirx_mlir.backends.cuda.interpreter.ptx_memory_ops import space_of
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view


def _source_bytes(ctx, src: np.ndarray, lanes: np.ndarray, size: int,
                  src_size: np.ndarray | None) -> np.ndarray:
    """(len(lanes), size) bytes read from global memory, zero past each lane's src-size."""
    if src_size is None:
        return ctx.mem.load(ctx, memory.GLOBAL, src, np.dtype(np.uint8), size, lanes)[lanes]
    bad = lanes[(src_size[lanes] < 0) | (src_size[lanes] > size)]
    if len(bad):
        raise ctx.error(f"cp.async with src-size {int(src_size[bad[0]])}; it must be in "
                        f"[0, cp-size = {size}]", bad)
    misaligned = lanes[src[lanes] % size != 0]
    if len(misaligned):
        raise ctx.error(f"the cp.async source 0x{int(src[misaligned[0]]):x} is not {size}-byte "
                        f"aligned", misaligned, code="misaligned")
    out = np.zeros((len(lanes), size), dtype=np.uint8)
    for j in range(size):
        reading = src_size[lanes] > j
        if reading.any():
            out[reading, j] = ctx.mem.load(ctx, memory.GLOBAL, src + j, np.dtype(np.uint8), 1,
                                           lanes[reading])[lanes[reading], 0]
    return out


@ptx_row("cp_async", "cp_async_zfill")
def run_cp_async(ctx, op, args):
    zfill = op.ENTRY.name == "cp_async_zfill"
    view = row_view(op, args)
    size = int(view.mods["cp_size"])
    lanes = ctx.lanes
    if not len(lanes):
        return ()
    src = view.one("src").astype(np.int64)
    src_size = view.one("src_size").astype(np.int64) & 0xFFFFFFFF if zfill else None
    data = _source_bytes(ctx, src, lanes, size, src_size)
    cta, offset = shared_targets(ctx, space_of(ctx, view.mods), view.one("dst"), size, lanes,
                                 size, "the cp.async destination")
    state = state_of(ctx)
    n = len(lanes)
    flight = Flight(op, lanes, cta, np.full(n, -1), state.cp_groups[lanes].copy(),
                    np.full(n, size), np.repeat(np.arange(n), size),
                    (offset[:, None] + np.arange(size)).reshape(-1), data.reshape(-1))
    for hook in hooks(ctx, "on_cp_async_issue"):  # the racecheck: a write from now on
        hook(ctx, flight.cta[flight.byte_unit], flight.byte_off, flight.lane[flight.byte_unit])
    state.issue(ctx, flight, "the issuing thread's ptx.cp_async_wait_group or wait_all, or "
                             "the mbarrier phase its ptx.cp_async_mbarrier_arrive counts in")
    ctx.stats.add(op, "async_bytes", n * size)
    return ()


@ptx_row("cp_async_commit_group")
def run_commit_group(ctx, op, args):
    state_of(ctx).cp_groups[ctx.mask] += 1
    return ()


def wait_groups(ctx, n: int) -> None:
    """Land the active lanes' cp.async groups but the ``n`` most recent."""
    state = state_of(ctx)
    state.land_groups(ctx, ctx.lanes, state.cp_groups - n)


@ptx_row("cp_async_wait_group")
def run_wait_group(ctx, op, args):
    wait_groups(ctx, int(row_view(op, args).mods["n"]))
    return ()


@ptx_row("cp_async_wait_all")
def run_wait_all(ctx, op, args):
    state_of(ctx).cp_groups[ctx.mask] += 1
    wait_groups(ctx, 0)
    return ()


@ptx_row("cp_async_mbarrier_arrive")
def run_mbarrier_arrive(ctx, op, args):
    view = row_view(op, args)
    lanes, cta, offset = barrier_keys(ctx, view)
    state = state_of(ctx)
    noinc = view.mods.get("noinc") is not None
    arrivals = []
    pending = state.pending_units(lanes.tolist())  # no copy lands in this loop
    for i, lane in enumerate(lanes.tolist()):
        key = (int(cta[i]), int(offset[i]))
        bar = state.barrier(ctx, *key)
        units = pending.get(lane)
        if not noinc:
            bar.pending += 1
        if units:
            state.tie(lane, key, units)
        else:
            arrivals.append((bar, bar.arrive(ctx, lane), lane))
    report_arrivals(ctx, arrivals)
    return ()
