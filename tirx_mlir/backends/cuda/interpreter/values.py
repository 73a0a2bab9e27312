"""Lane values: how the SIMT interpreter holds SSA values.

A run executes a *wave*: several CTAs of one launch at once, ``L`` lanes in all (`wave.Wave`).
Every SSA value of a scalar type is a numpy array of shape ``(L,)``, one element per lane; a
``vector<N x T>`` value has shape ``(L, N)``. Element dtypes (`lane_dtype`): ``index`` and
``i64`` are int64, ``i32`` int32, ``i16`` int16, ``i8`` int8, ``i1`` bool, float types their
numpy / ml_dtypes dtype. Integers are kept in signed form, as the core interpreter keeps them;
an unsigned operation views them (``a.view(np.uint32)``). A PTX ``b32`` register is an int32 lane
array (a packed f16x2 holds its first element in the low half), ``b64`` int64, ``pred`` bool.

Lanes outside the running group's mask hold garbage: pure ops compute on every lane (numpy
warnings off), ops with side effects look at the mask.

A value some op makes now but that may only be read later (a wgmma accumulator, readable after
its ``wait_group``) is a `Deferred`; reading one before it is delivered is a located error.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.ir import Attribute

from tirx_mlir.dialects.tirx import dtypes

_INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
               32: np.dtype(np.int32), 64: np.dtype(np.int64)}


@lru_cache(maxsize=None)
def lane_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of one lane's element of a value of type ``t`` (a vector's element)."""
    if isinstance(t, VectorType):
        t = t.element_type
    if isinstance(t, IndexType):
        return _INT_DTYPES[64]
    if isinstance(t, IntegerType):
        width = t.width.data
        if width not in _INT_DTYPES:
            raise ValueError(f"the SIMT interpreter has no {width}-bit integers")
        return _INT_DTYPES[width]
    return dtypes.numpy_dtype(t)


@lru_cache(maxsize=None)
def lane_shape(t: Attribute) -> tuple[int, ...]:
    """The per-lane shape of a value of type ``t``: ``()`` for a scalar, ``(N,)`` for a
    ``vector<N x T>``."""
    if isinstance(t, VectorType):
        return tuple(t.get_shape())
    return ()


def full(n_lanes: int, value, t: Attribute) -> np.ndarray:
    """A lane value of type ``t`` holding ``value`` on every lane."""
    return np.full((n_lanes, *lane_shape(t)), value, dtype=lane_dtype(t))


class Deferred:
    """A value produced now but readable only once `deliver` is called (e.g. by the wait that
    completes an asynchronous op); ``what`` says what must happen first, for the error."""

    __slots__ = ("value", "ready", "what")

    def __init__(self, value: np.ndarray, what: str):
        self.value = value
        self.ready = False
        self.what = what

    def deliver(self) -> None:
        self.ready = True
