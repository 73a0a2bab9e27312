"""Shared-memory bank conflicts of one access: the wavefronts each warp's access needs.

The model is the one NVIDIA documents and its profiler counts:

- Shared memory has 32 banks; successive 32-bit words map to successive banks, so the bank of a
  byte offset is ``(offset // 4) % 32`` (CUDA C++ Programming Guide, "Compute Capability 5.x" ->
  "Shared Memory", which later capabilities keep).
- Lanes of a warp that touch the same 32-bit word never conflict, even though that word is in one
  bank: a read is broadcast to them and a write is done by one of them (same section).
- Lanes that touch *different* words of the same bank are serialised: the access needs as many
  passes ("wavefronts" in Nsight Compute, metric
  ``l1tex__data_pipe_lsu_wavefronts_mem_shared``) as the most-loaded bank has distinct words.
- A wavefront serves at most 128 bytes (32 banks x 4 bytes), so a 64-bit access by a warp is
  processed per half-warp (lanes 0-15, 16-31) and a 128-bit access per quarter-warp (lanes 0-7,
  8-15, ...): a conflict-free 128-bit access by 32 lanes takes 4 wavefronts, the ideal. Nsight
  Compute reports ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared`` as the wavefronts above that
  ideal, so that access reports 0 conflicts (Nsight Compute Kernel Profiling Guide, "Memory Tables"
  -> "Shared Memory"; NVIDIA developer forum thread "Clarification: bank conflicts metric vs
  wavefronts for shared memory LDS.128").

Per warp and access: ``wavefronts = sum over its phases (half/quarter warps) of the largest number
of distinct words any bank holds in that phase``; ``ideal = number of phases with an active lane``;
``conflicts = wavefronts - ideal``. Not modelled: the sm_70-sm_75 packing of uniform LDS.128
addresses into 2 wavefronts, which only lowers the count below the ideal.

Everything is vectorised over the accessing lanes of any number of warps at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.arrays import dense_index, sorted_unique

BANKS = 32
BANK_BYTES = 4
WARP_SIZE = 32

_WORD_BITS = 32  # a packed key: (warp, phase) << 32 | word
_WORD_MASK = (1 << _WORD_BITS) - 1


@dataclass(frozen=True)
class BankReport:
    """Wavefronts of one access, per accessing warp (``warps`` sorted, ids as given)."""

    warps: np.ndarray  # int64 (n,): the warps that accessed
    wavefronts: np.ndarray  # int64 (n,)
    ideal: np.ndarray  # int64 (n,): wavefronts without a conflict

    @property
    def conflicts(self) -> np.ndarray:
        return self.wavefronts - self.ideal

    @property
    def total_wavefronts(self) -> int:
        return int(self.wavefronts.sum())

    @property
    def total_conflicts(self) -> int:
        return int(self.conflicts.sum())


def words_per_lane(nbytes: np.ndarray | int) -> np.ndarray:
    """The 32-bit words a naturally aligned access of ``nbytes`` touches (a narrower one: 1)."""
    return np.maximum(1, np.asarray(nbytes, dtype=np.int64) // BANK_BYTES)


def lanes_per_phase(nbytes: np.ndarray | int) -> np.ndarray:
    """Lanes served together: 32 for <= 32-bit accesses, 16 for 64-bit, 8 for 128-bit."""
    return np.maximum(1, WARP_SIZE // words_per_lane(nbytes))


def bank_wavefronts(
    warp: np.ndarray, lane: np.ndarray, offset: np.ndarray, nbytes: np.ndarray | int
) -> BankReport:
    """The wavefronts per warp of one shared access.

    ``warp``, ``lane`` (0..31, the lane in its warp), ``offset`` (byte offset in the arena) are
    arrays over the *active* accessing lanes; ``nbytes`` is the access width, one for all or one per
    lane. Accesses are assumed naturally aligned (the memory module rejects the others first).
    """
    warp = np.asarray(warp, dtype=np.int64)
    lane = np.asarray(lane, dtype=np.int64)
    offset = np.asarray(offset, dtype=np.int64)
    n = warp.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return BankReport(empty, empty, empty)
    width = words_per_lane(nbytes)
    phase = lane // lanes_per_phase(nbytes)
    phases = int(phase.max()) + 1
    warps, dense_warp = dense_index(warp)
    group = dense_warp * phases + phase  # (warp, phase), dense
    # one column per word a lane touches; narrower lanes repeat their first word
    word = offset // BANK_BYTES
    if width.max() > 1:
        k = np.arange(int(width.max()), dtype=np.int64)
        word = word[:, None] + np.minimum(k, np.reshape(width, (-1, 1)) - 1)
        group = np.broadcast_to(group[:, None], word.shape)
    key = sorted_unique((group << _WORD_BITS | word).ravel())  # distinct words per group
    bank_slot = (key >> _WORD_BITS) * BANKS + (key & _WORD_MASK) % BANKS
    words_in_bank = np.bincount(bank_slot, minlength=warps.size * phases * BANKS)
    per_phase = words_in_bank.reshape(warps.size, phases, BANKS).max(axis=2)
    return BankReport(warps, per_phase.sum(axis=1), (per_phase > 0).sum(axis=1))
