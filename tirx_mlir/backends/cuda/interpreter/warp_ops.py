"""Warp-level exchange and reductions on lane values: the ``cuda`` shuffles, votes, the active
mask, ``warp_reduce``, ``cta_reduce`` and ``elect_sync``, and the ``ptx`` rows ``shfl_sync``,
``vote_sync``, ``redux_sync``, ``activemask``, ``match_any_sync`` and ``elect_sync``.

Every op with a mask checks it first (`lane_masks.check_warp_mask`: the lanes the mask names
execute the op here, and only they).

* Shuffles follow the PTX ISA's ``shfl.sync`` definition (source lane ``j`` from the mode, the
  lane operand ``b[4:0]`` and the clamp/segment operand ``c``; a lane whose ``j`` falls outside
  its segment reads its own value); ``cuda.shfl_sync`` is ``shfl.sync`` with the ``c`` CUDA's
  ``__shfl_*_sync(mask, v, lane, width)`` passes (``((32 - width) << 8) | 31``, ``| 0`` for
  ``up``), so one definition serves both. Reading a lane that does not take part (not in the
  reader's mask, inactive, or past the end of a partial warp) is undefined on the GPU: the
  reader gets all-ones bits (NaN, -1), the interpreter's poison, as fresh memory reads.
* ``cuda.warp_reduce`` runs the xor butterfly both printers emit (offsets width/2 .. 1, each
  step ``v = combine(v, shfl_xor(v, offset))``), so a float sum rounds as on the GPU; the
  combines are the printed C++ ones (``(a > b) ? a : b`` for max).
* ``cuda.cta_reduce`` (blocking) is the printed sequence: a warp butterfly, lane 0 of each warp
  stores its partial to ``scratch[warp]``, ``__syncthreads``, warp 0 reduces the partials (sum
  pads with 0, max/min with ``scratch[0]``) and stores ``scratch[0]``, ``__syncthreads``, every
  thread reads ``scratch[0]``, ``__syncthreads``; the scratch accesses go through the checked
  memory (the race check sees them).
* ``redux.sync`` reduces over the mask's lanes (integer add wraps; ``.f32`` min/max ignore NaN
  unless ``.NaN``; ``.abs`` takes absolute values first); ``match.any`` gives each lane the
  mask's lanes holding its value; ``elect.sync`` elects the lowest lane of the mask.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda import sync, warp
from tirx_mlir.backends.cuda.dialects.cuda.checks import type_name
from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.barriers import arrive_and_wait
from tirx_mlir.backends.cuda.interpreter.cuda_ops import element_addresses
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.lane_math import combine, unsigned_view
from tirx_mlir.backends.cuda.interpreter.lane_masks import (WARP_MASK, check_warp_mask,
                                                            mask_bits, warp_bits, warp_matrix)
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype


def poison(dtype: np.dtype):
    """All-ones bits of ``dtype``: what reading a lane that does not take part gives."""
    return np.frombuffer(bytes([memory.FRESH_BYTE]) * dtype.itemsize, dtype=dtype)[0]


# ---- shuffles -------------------------------------------------------------------------------

def shuffle(ctx, active: np.ndarray, values: np.ndarray, mode: str, b, clamp,
            bits: np.ndarray) -> np.ndarray:
    """``shfl.sync.<mode>`` (``up``/``down``/``bfly``/``idx``) of ``values`` for the lanes of
    ``active``: ``b`` the lane/offset operand, ``clamp`` the ``c`` operand, ``bits`` the
    members mask (the mask check is the caller's)."""
    wave = ctx.wave
    lane = wave.lane
    bval = np.asarray(b).astype(np.int64) & 31
    c = np.asarray(clamp).astype(np.int64)
    seg = (c >> 8) & 31
    max_lane = (lane & seg) | (c & 31 & ~seg)
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    else:
        j = (lane & seg) | (bval & ~seg)
        ok = j <= max_lane
    j = np.where(ok, j, lane)
    here = np.arange(wave.L)
    exists = wave.tid - lane + j < wave.T
    src = np.where(exists, here - lane + j, here)
    joined = exists & active[src] & ((bits >> j) & 1).astype(bool)
    out = values[src]
    if not joined[active].all():
        out = np.where(joined, out, poison(values.dtype))
    return out


def cuda_clamp(mode: str, width: int) -> int:
    """The ``c`` operand of ``shfl.sync`` that CUDA's ``__shfl_*_sync(..., width)`` passes."""
    return ((32 - width) << 8) | (0 if mode == "up" else 31)


_CUDA_MODES = {"idx": "idx", "up": "up", "down": "down", "xor": "bfly"}


@lane_impl(warp.ShflSyncOp)
def run_shfl_sync(ctx, op, args):
    mask, value, lane = args
    bits = mask_bits(ctx, mask)
    check_warp_mask(ctx, bits, ctx.mask, f"__shfl_{op.head}_sync".replace("_idx", ""))
    mode = _CUDA_MODES[op.head]
    return (shuffle(ctx, ctx.mask, value, mode, lane, cuda_clamp(mode, op.int_prop("width", 32)),
                    bits),)


@ptx_row("shfl_sync")
def run_ptx_shfl_sync(ctx, op, args):
    view = row_view(op, args)
    bits = mask_bits(ctx, view.mods["membermask"])
    check_warp_mask(ctx, bits, ctx.mask, "shfl.sync")
    src = view.one("src")
    out = shuffle(ctx, ctx.mask, src, view.mods["mode"], view.one("lane"), view.mods["clamp"],
                  bits)
    return (out.view(lane_dtype(op.results[0].type)),)


# ---- votes, masks, elections ----------------------------------------------------------------

def vote(ctx, bits: np.ndarray, pred: np.ndarray, mode: str) -> np.ndarray:
    """``all``/``any``/``uni`` (bool) or ``ballot`` (int32 bits) over each lane's mask."""
    wave = ctx.wave
    members = warp_bits(wave, ctx.mask)[wave.warp] & bits
    ballot = warp_bits(wave, ctx.mask & pred)[wave.warp] & bits
    if mode == "ballot":
        return ballot.astype(np.uint32).view(np.int32)
    if mode == "all":
        return ballot == members
    if mode == "any":
        return ballot != 0
    return (ballot == members) | (ballot == 0)


@lane_impl(warp.VoteOp)
def run_vote(ctx, op, args):
    mask, pred = args
    bits = mask_bits(ctx, mask)
    check_warp_mask(ctx, bits, ctx.mask, f"__{op.head}_sync")
    return (vote(ctx, bits, pred, op.head),)


@ptx_row("vote_sync")
def run_ptx_vote_sync(ctx, op, args):
    view = row_view(op, args)
    bits = mask_bits(ctx, view.mods["membermask"])
    check_warp_mask(ctx, bits, ctx.mask, "vote.sync")
    out = vote(ctx, bits, view.one("pred"), view.mods["mode"])
    return (out.view(lane_dtype(op.results[0].type)) if out.dtype != np.bool_ else out,)


def active_mask(ctx) -> np.ndarray:
    """``__activemask()``: the active lanes of each lane's warp, as int32 bits."""
    wave = ctx.wave
    return warp_bits(wave, ctx.mask)[wave.warp].astype(np.uint32).view(np.int32)


@lane_impl(warp.ActiveMaskOp)
def run_activemask(ctx, op, args):
    return (active_mask(ctx),)


@ptx_row("activemask")
def run_ptx_activemask(ctx, op, args):
    return (active_mask(ctx).view(lane_dtype(op.results[0].type)),)


def elect(ctx, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(leader lane per lane, whether the lane is it): the lowest active lane of the mask."""
    wave = ctx.wave
    members = warp_bits(wave, ctx.mask)[wave.warp] & bits
    lowest = members & -members
    leader = np.where(members != 0, np.log2(np.maximum(lowest, 1)), 0).astype(np.int32)
    return leader, ctx.mask & (members != 0) & (wave.lane == leader)


@lane_impl(sync.ElectSyncOp)
def run_elect_sync(ctx, op, args):
    bits = mask_bits(ctx, args[0])
    check_warp_mask(ctx, bits, ctx.mask, "elect.sync")
    return (elect(ctx, bits)[1],)


@ptx_row("elect_sync")
def run_ptx_elect_sync(ctx, op, args):
    bits = mask_bits(ctx, row_view(op, args).mods["membermask"])
    check_warp_mask(ctx, bits, ctx.mask, "elect.sync")
    leader, is_leader = elect(ctx, bits)
    return leader.view(lane_dtype(op.results[0].type)), is_leader


@ptx_row("match_any_sync")
def run_ptx_match_any_sync(ctx, op, args):
    view = row_view(op, args)
    bits = mask_bits(ctx, view.mods["membermask"])
    check_warp_mask(ctx, bits, ctx.mask, "match.any.sync")
    wave = ctx.wave
    src = view.one("src")
    rows = warp_matrix(wave, src, ctx.mask, 0)[wave.warp]
    present = warp_matrix(wave, ctx.mask, ctx.mask, False)[wave.warp]
    same = present & (rows == src[:, None]) & ((bits[:, None] >> np.arange(32)) & 1).astype(bool)
    out = (same.astype(np.int64) << np.arange(32)).sum(axis=1)
    return (out.astype(np.uint32).view(np.int32).view(lane_dtype(op.results[0].type)),)


# ---- reductions -----------------------------------------------------------------------------

def butterfly(ctx, active: np.ndarray, values: np.ndarray, bits: np.ndarray, width: int,
              step) -> np.ndarray:
    """``v = step(v, shfl_xor(v, offset))`` for offsets ``width/2 .. 1``."""
    clamp = cuda_clamp("bfly", width)
    offset = width // 2
    while offset >= 1:
        values = step(values, shuffle(ctx, active, values, "bfly", offset, clamp, bits))
        offset //= 2
    return values


def _unsigned(value_type) -> bool:
    return type_name(value_type).startswith("ui")


@lane_impl(warp.WarpReduceOp)
def run_warp_reduce(ctx, op, args):
    mask, value = args
    bits = mask_bits(ctx, mask)
    check_warp_mask(ctx, bits, ctx.mask, "cuda.warp_reduce")
    step = combine(op.head, _unsigned(op.value.type))
    return (butterfly(ctx, ctx.mask, value, bits, op.int_prop("width", 32), step),)


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


@lane_impl(warp.CtaReduceOp, blocking=True)
def run_cta_reduce(ctx, op, args):
    value, scratch = args
    wave = ctx.wave
    active = ctx.mask
    full = np.full(wave.L, WARP_MASK, dtype=np.int64)
    check_warp_mask(ctx, full, active, "cuda.cta_reduce")
    step = combine(op.head, _unsigned(op.value.type))
    mem = ctx.mem
    warps = wave.warps_per_cta
    partial = butterfly(ctx, active, value, full, 32, step)
    space, slot = element_addresses(ctx, scratch, wave.warp_in_cta, 1)
    writers = np.flatnonzero(active & (wave.lane == 0))
    mem.store(ctx, space, slot, partial.reshape(-1, 1), writers)
    yield from arrive_and_wait(ctx, ("bar", 0), "cta", wave.T, same_op=True)
    lead = active & (wave.tid < 32)
    has_partial = wave.tid < warps
    _, own = element_addresses(ctx, scratch, np.where(has_partial, wave.tid, 0), 1)
    _, first = element_addresses(ctx, scratch, np.zeros(wave.L, dtype=np.int64), 1)
    loaded = mem.load(ctx, space, own, scratch.dtype, 1,
                      np.flatnonzero(lead & has_partial))[:, 0]
    if op.head == "sum":  # lanes past the last warp hold the identity
        spare = np.zeros_like(loaded)
    else:
        spare = mem.load(ctx, space, first, scratch.dtype, 1,
                         np.flatnonzero(lead & ~has_partial))[:, 0]
    total = butterfly(ctx, lead, np.where(has_partial, loaded, spare), full,
                      _pow2_at_least(warps), step)
    # every lane's loaded partial feeds the shuffles before lane 0 has the total to store:
    # the loads are ordered before that store as by __syncwarp
    for obs in mem.observers:
        obs.on_barrier(ctx, "warp", np.flatnonzero(lead))
    mem.store(ctx, space, first, total.reshape(-1, 1), np.flatnonzero(lead & (wave.tid == 0)))
    yield from arrive_and_wait(ctx, ("bar", 0), "cta", wave.T, same_op=True)
    result = mem.load(ctx, space, first, scratch.dtype, 1, np.flatnonzero(active))[:, 0]
    yield from arrive_and_wait(ctx, ("bar", 0), "cta", wave.T, same_op=True)
    return (result,)


_REDUX_IDENTITY = {"add": 0, "and": -1, "or": 0, "xor": 0}


@ptx_row("redux_sync")
def run_ptx_redux_sync(ctx, op, args):
    view = row_view(op, args)
    mods = view.mods
    bits = mask_bits(ctx, mods["membermask"])
    check_warp_mask(ctx, bits, ctx.mask, "redux.sync")
    wave = ctx.wave
    src = view.one("src")
    kind, ptx_type = mods["op"], mods["type"]
    sel = ctx.mask & ((bits >> wave.lane) & 1).astype(bool)
    with np.errstate(all="ignore"):
        if ptx_type == "f32":
            vals = np.abs(src) if mods.get("abs") else src
            if mods.get("nan"):
                fill = np.inf if kind == "min" else -np.inf
                reduce = np.minimum if kind == "min" else np.maximum
            else:
                fill, reduce = np.nan, (np.fmin if kind == "min" else np.fmax)
            per_warp = reduce.reduce(warp_matrix(wave, vals.astype(np.float32), sel, fill), axis=1)
        elif kind in ("min", "max"):
            vals = src.astype(np.int32)
            vals = unsigned_view(vals) if ptx_type == "u32" else vals
            info = np.iinfo(vals.dtype)
            fill = info.max if kind == "min" else info.min
            reduce = np.minimum if kind == "min" else np.maximum
            per_warp = reduce.reduce(warp_matrix(wave, vals, sel, fill), axis=1).astype(
                vals.dtype).view(np.int32)
        else:
            matrix = warp_matrix(wave, src.astype(np.int64), sel, _REDUX_IDENTITY[kind])
            reduce = {"add": np.add, "and": np.bitwise_and, "or": np.bitwise_or,
                      "xor": np.bitwise_xor}[kind]
            per_warp = (reduce.reduce(matrix, axis=1) & WARP_MASK).astype(np.uint32).view(
                np.int32)
    return (per_warp[wave.warp].view(lane_dtype(op.results[0].type)),)
