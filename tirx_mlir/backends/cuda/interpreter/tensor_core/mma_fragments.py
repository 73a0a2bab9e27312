"""Which lane and register of a warp holds which element of the A, B and C/D matrices of an
``mma.sync.aligned.m16n8k*.row.col`` form: the PTX ISA sections "Matrix Fragments for
mma.m16n8k8", "... mma.m16n8k16 with floating point type", "... with integer type" and
"... mma.m16n8k32" (Warp Level Matrix Multiply-Accumulate Instructions).

With ``groupID = lane >> 2`` and ``threadID_in_group = lane % 4`` (g, t below), every form is
built of 8-row blocks in which lane l holds ``p`` consecutive K-elements of row g (A) or column
g (B) at K offset ``p * t``, where ``p = 32 / element bits`` is the number of elements per b32
register:

* A (16 x K): register r holds row ``g + 8 * (r % 2)``, columns ``p*t + j + 4*p*(r // 2)``;
* B (K x 8): register r holds rows ``p*t + j + 4*p*r`` of column g;
* C/D (16 x 8): element i (register i for f32/s32, half i % 2 of register i // 2 for f16) is
  row ``g + 8 * (i // 2)``, column ``2*t + i % 2``.

A map is a pair of int arrays ``(rows, cols)`` of shape ``(32, elements per lane)``; element e
of a lane lives in register ``e // p`` at position ``e % p`` (packing.unpack's order).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Mapping

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.dialects.ptx import rules
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import per_register

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

M, N = 16, 8


@dataclass(frozen=True)
class MmaForm:
    """One mma.sync form: ``m16n8k<k>`` with A/B element types and the accumulator type."""

    shape: str
    atype: str
    btype: str
    dtype: str

    @classmethod
    def from_mods(cls, mods: Mapping[str, object]) -> "MmaForm":
        """From a ``ptx.mma_sync`` op's modifier map (``PtxOp.mods()``)."""
        return cls(str(mods["shape"]), str(mods["atype"]), str(mods["btype"]), str(mods["dtype"]))

    @classmethod
    def parse(cls, text: str) -> "MmaForm":
        """From the op's modifier string ``"m16n8k16.f32.f16.f16.f32"`` (shape, D, A, B, C)."""
        shape, dtype, atype, btype, _ctype = text.split(".")
        return cls(shape, atype, btype, dtype)

    def __post_init__(self) -> None:
        if (self.shape, self.atype, self.btype, self.dtype) not in rules.MMA_SHAPES:
            raise ValueError(f"mma.sync {self} is not a supported form")

    def __str__(self) -> str:
        return f"{self.shape}.{self.dtype}.{self.atype}.{self.btype}.{self.dtype}"

    @property
    def k(self) -> int:
        return int(self.shape.split("k")[1])

    @property
    def registers(self) -> tuple[int, int, int]:
        """b32 registers per lane of A, B and C/D (the PTX table's rule)."""
        return rules.MMA_SHAPES[(self.shape, self.atype, self.btype, self.dtype)]


def _lane_ids() -> tuple[np.ndarray, np.ndarray]:
    lane = np.arange(32)[:, None]
    return lane >> 2, lane % 4


def _elements(ptx_type: str, regs: int) -> tuple[int, np.ndarray, np.ndarray]:
    """``p`` and, for each element of a lane's ``regs`` registers, its register and position."""
    p = per_register(ptx_type)
    e = np.arange(regs * p)[None, :]
    return p, e // p, e % p


@lru_cache(maxsize=None)
def a_map(form: MmaForm) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the A elements each lane holds: ``(32, regs_a * p)``."""
    (g, t), (p, r, j) = _lane_ids(), _elements(form.atype, form.registers[0])
    return np.broadcast_to(g + 8 * (r % 2), (32, r.size)), p * t + j + 4 * p * (r // 2)


@lru_cache(maxsize=None)
def b_map(form: MmaForm) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the B elements each lane holds: ``(32, regs_b * p)``."""
    (g, t), (p, r, j) = _lane_ids(), _elements(form.btype, form.registers[1])
    return p * t + j + 4 * p * r, np.broadcast_to(g, (32, r.size))


@lru_cache(maxsize=None)
def c_map(form: MmaForm) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the C/D elements each lane holds: ``(32, 4)``."""
    g, t = _lane_ids()
    i = np.arange(4)[None, :]
    return np.broadcast_to(g + 8 * (i // 2), (32, 4)), 2 * t + i % 2


def scatter(elements: np.ndarray, rows: np.ndarray, cols: np.ndarray,
            shape: tuple[int, int]) -> np.ndarray:
    """Per-lane fragments ``(W, 32, E)`` -> the matrices ``(W, *shape)`` they tile."""
    out = np.empty((elements.shape[0], *shape), dtype=elements.dtype)
    out[:, rows, cols] = elements
    return out


def gather(matrices: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Matrices ``(W, R, C)`` -> the per-lane fragments ``(W, 32, E)`` of a map."""
    return matrices[:, rows, cols]
