"""Register fragments of ``wgmma.mma_async.sync.aligned.m64nNk*``: PTX ISA "Register Fragments
and Shared Memory Matrix Layouts" of Asynchronous Warpgroup Level Matrix Multiply-Accumulate
("Matrix fragments for wgmma.m64nNk16 / k8 / k32").

A warpgroup is 4 consecutive warps (128 threads); warp ``w`` of the group owns rows
``16*w .. 16*w + 15`` of the 64-row A and D matrices, and within them has the layout of one
``mma.m16n8k*`` (mma_fragments.py):

* D (64 x N): element i (``N / 2`` per thread: one f32 register each, or half i % 2 of f16x2
  register i // 2) is row ``16*w + g + 8 * ((i // 2) % 2)``, column ``8 * (i // 4) + 2*t +
  i % 2`` — the m16n8 C layout repeated over the N / 8 column blocks;
* A from registers (the ``rs`` form, 4 b32 registers): the A fragment of mma ``m16n8k16``
  (f16/bf16), ``m16n8k8`` (tf32) or ``m16n8k32`` (e4m3/e5m2) for the warp's 16 rows.

Maps are ``(rows, cols)`` int arrays of shape ``(128, elements per thread)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

import numpy as np

from tirx_mlir.backends.cuda.dialects.ptx import rules
from tirx_mlir.backends.cuda.interpreter.tensor_core.mma_fragments import MmaForm, a_map

M = 64
THREADS = 128
_A_SHAPE = {16: "m16n8k16", 8: "m16n8k8", 32: "m16n8k32"}


@dataclass(frozen=True)
class WgmmaForm:
    """One wgmma.mma_async form: ``m64n<N>k<K>``, D type, A and B element types."""

    shape: str
    dtype: str
    atype: str
    btype: str

    @classmethod
    def from_mods(cls, mods: Mapping[str, object]) -> "WgmmaForm":
        return cls(str(mods["shape"]), str(mods["dtype"]), str(mods["atype"]),
                   str(mods["btype"]))

    @classmethod
    def parse(cls, text: str) -> "WgmmaForm":
        """From the op's modifier string ``"m64n128k16.f32.f16.f16"`` (shape, D, A, B)."""
        return cls(*text.split("."))

    def __post_init__(self) -> None:
        reason = None if self.shape in rules.WGMMA_SHAPES else "unknown shape"
        reason = reason or rules.check_wgmma(self.mods())
        if reason:
            raise ValueError(f"wgmma {'.'.join(self.mods().values())}: {reason}")

    def mods(self) -> dict[str, str]:
        return {"shape": self.shape, "dtype": self.dtype, "atype": self.atype,
                "btype": self.btype}

    @property
    def n(self) -> int:
        return rules.wgmma_n(self.mods())

    @property
    def k(self) -> int:
        return int(self.shape.split("k")[1])

    @property
    def acc_registers(self) -> int:
        """Accumulator registers per thread (the PTX table's rule)."""
        return rules.wgmma_acc_lanes(self.mods())

    @property
    def warp_a_form(self) -> MmaForm:
        """The mma form whose A fragment each warp's share of a register A has."""
        return MmaForm(_A_SHAPE[self.k], self.atype, self.atype, "f32")


def _warp_and_lane() -> tuple[np.ndarray, np.ndarray]:
    tid = np.arange(THREADS)[:, None]
    return tid // 32, tid % 32


@lru_cache(maxsize=None)
def accumulator_map(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the D elements of each thread: ``(128, n / 2)``."""
    w, lane = _warp_and_lane()
    g, t = lane >> 2, lane % 4
    i = np.arange(n // 2)[None, :]
    return 16 * w + g + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * t + i % 2


@lru_cache(maxsize=None)
def a_register_map(form: WgmmaForm) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the A elements of each thread in the ``rs`` form: ``(128, 4 * p)``."""
    w, lane = _warp_and_lane()
    rows, cols = a_map(form.warp_a_form)
    return 16 * w + rows[lane[:, 0]], cols[lane[:, 0]]
