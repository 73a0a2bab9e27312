"""Lane masks of warp-synchronous ops: 32-bit lane sets as per-lane values, the lanes of each
warp as bits, and the check every warp-synchronous op makes of its mask.

A mask is held as an ``(L,)`` int64 array of its unsigned 32-bit value (`mask_bits`; a ``ptx``
immediate mask is the same value on every lane). Lane ``l`` of the wave is bit
``wave.lane[l]`` of its warp ``wave.warp[l]``; a warp's lanes are contiguous in the wave and in
lane order, and the lanes past the end of a partial warp (a block that is not a multiple of 32
threads) do not exist: a mask naming them is satisfied without them, as exited threads are on
the GPU.

`check_warp_mask` states the rule of CUDA's ``*_sync`` intrinsics and PTX's ``.sync``
instructions (CUDA C++ Programming Guide, "Warp Shuffle Functions": "each calling thread must
have its own bit set in the mask and all non-exited threads named in mask must execute the same
intrinsic with the same mask"): a located error names the lanes the mask names that do not
execute the op here (elsewhere in the program, or inactive after a branch), and the lanes that
execute it without being named.
"""

from __future__ import annotations

import numpy as np

WARP_MASK = 0xFFFF_FFFF


def mask_bits(ctx, mask) -> np.ndarray:
    """``mask`` (an i32 lane value or an int) as ``(L,)`` int64 values in ``0 .. 2**32 - 1``."""
    if isinstance(mask, np.ndarray):
        return mask.astype(np.int64) & WARP_MASK
    return np.full(ctx.wave.L, int(mask) & WARP_MASK, dtype=np.int64)


def named(wave, bits: np.ndarray) -> np.ndarray:
    """Per lane: whether its own bit is set in ``bits`` (its lane's value)."""
    return ((bits >> wave.lane) & 1).astype(bool)


def warp_bits(wave, lanes: np.ndarray) -> np.ndarray:
    """``(n_warps,)`` int64: per warp, the bits of its lanes in the bool mask ``lanes``."""
    weights = np.left_shift(1, wave.lane[lanes]).astype(np.float64)  # exact: sums < 2**32
    return np.bincount(wave.warp[lanes], weights=weights,
                       minlength=wave.n_warps).astype(np.int64)


def warp_matrix(wave, values: np.ndarray, lanes: np.ndarray, fill) -> np.ndarray:
    """``(n_warps, 32)``: ``values`` of the lanes of ``lanes`` at their warp and lane, ``fill``
    everywhere else."""
    out = np.full((wave.n_warps, 32), fill, dtype=values.dtype)
    out[wave.warp[lanes], wave.lane[lanes]] = values[lanes]
    return out


def check_warp_mask(ctx, bits: np.ndarray, active: np.ndarray, what: str) -> None:
    """Every lane a mask of an ``active`` lane names is active here, and every active lane is
    named by its own mask (a located error at the running op otherwise)."""
    wave = ctx.wave
    idx = np.flatnonzero(active)
    if not len(idx):
        return
    warps = wave.warp[idx]
    starts = np.flatnonzero(np.r_[True, warps[1:] != warps[:-1]])
    per_warp = np.zeros(wave.n_warps, dtype=np.int64)
    per_warp[warps[starts]] = np.bitwise_or.reduceat(bits[idx], starts)
    wanted = named(wave, per_warp[wave.warp])
    absent = wanted & ~active
    if absent.any():
        raise ctx.error(f"the mask of {what} names lanes that do not execute it here", absent,
                        code="warp-sync",
                        hint="every lane a warp-synchronous op's mask names must execute that "
                             "same op together with the others; pass the mask of the lanes "
                             "that reach it (e.g. __activemask())")
    outside = active & ~named(wave, bits)
    if outside.any():
        raise ctx.error(f"{what} is executed by lanes its mask does not name", outside,
                        code="warp-sync",
                        hint="every lane that executes a warp-synchronous op must have its own "
                             "bit set in the mask")
