"""What every lane operation shares: the fault a lane raises, the lane dtype of a type, integer
wrapping and the unsigned view, and rounding a double-precision result to a float dtype.

Lane values follow the SIMT interpreter's contract (`values.py`): ``(L,)`` arrays for scalars,
``(L, N)`` for ``vector<N x T>``; integers in signed form of their width (index = int64), i1 as
bool; floats in their numpy / ml_dtypes dtype. Lanes outside the active mask hold garbage, so a
pure operation computes on every lane and only *checks* the active ones: an operation that
would be undefined on an active lane (division by zero, an over-wide shift) raises `LaneFault`
naming those lanes; the engine turns it into a located error naming the threads.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.ir import Attribute

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.interpreter.runtime import is_float_dtype

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)

SIGNED = {1: BOOL, 8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32),
          64: I64}
UNSIGNED = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
            64: np.dtype(np.uint64)}


class LaneFault(Exception):
    """An operation undefined on some active lanes: ``lanes`` are their indices (sorted)."""

    def __init__(self, message: str, lanes: np.ndarray, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.lanes = np.asarray(lanes, dtype=np.int64)
        self.hint = hint


def fault_lanes(bad: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Indices of active lanes where ``bad`` holds (``bad`` is ``(L,)`` or ``(L, N)``)."""
    if bad.ndim > 1:
        bad = bad.reshape(bad.shape[0], -1).any(axis=1)
    return np.flatnonzero(bad & mask)


def check_lanes(bad: np.ndarray, mask: np.ndarray, message: str, hint: str | None = None):
    """Raise `LaneFault` when ``bad`` holds on an active lane."""
    lanes = fault_lanes(bad, mask)
    if lanes.size:
        raise LaneFault(message, lanes, hint)


# --- types ---------------------------------------------------------------------------------------


def element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def int_width(t: Attribute) -> int:
    """Bit width of an integer or index type (or a vector of one); index is 64 bits."""
    t = element_type(t)
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        width = t.width.data
        if width not in SIGNED:
            raise ValueError(f"the SIMT interpreter has no {width}-bit integers (i1, i8, i16, "
                             f"i32, i64 and index only)")
        return width
    raise ValueError(f"expected an integer or index type, got {t}")


def float_dtype(t: Attribute) -> np.dtype:
    """numpy dtype of a float type (or a vector of one)."""
    dt = dtypes.numpy_dtype(element_type(t))
    if not is_float_dtype(dt):
        raise ValueError(f"expected a float type, got {t}")
    return dt


def lane_dtype(t: Attribute) -> np.dtype:
    """The dtype of a lane's element of a value of type ``t``."""
    t = element_type(t)
    if isinstance(t, (IndexType, IntegerType)):
        return SIGNED[int_width(t)]
    return float_dtype(t)


# --- integers ------------------------------------------------------------------------------------


def as_unsigned(a: np.ndarray, width: int) -> np.ndarray:
    """The unsigned reading of a signed lane array (i1: 0/1 as uint8)."""
    if width == 1:
        return a.astype(np.uint8)
    return a.view(UNSIGNED[width])


def as_int(a: np.ndarray) -> np.ndarray:
    """An integer lane array to compute on: i1 reads as 0/1 (uint8), others as they are (the
    core interpreter reads an i1 as the Python int 0 or 1 in every op but ``extsi``)."""
    return a.astype(np.uint8) if a.dtype == BOOL else a


def wrap(x: np.ndarray, width: int) -> np.ndarray:
    """``x`` (any integer dtype) modulo 2**width in the signed lane dtype of ``width``."""
    if width == 1:
        return (x & 1).astype(BOOL)
    return x.astype(SIGNED[width], copy=False)


# --- floats --------------------------------------------------------------------------------------


def to_f64(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == F64 else a.astype(F64)


def round_to(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """A float64 result rounded to nearest even in ``dt``, as the core's ``round_float`` does
    (overflow gives inf, or NaN for f8E4M3FN, which has no inf)."""
    if dt == F64:
        return x
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dt)
