"""The numpy meaning of the functions tile primitives name, on whole arrays.

`rules.py` states which names a fused op may use (``UNARY_FUNCS``, ``BINARY_FUNCS``,
``REDUCE_FUNCS``); this module says what each one computes. Everything works on whole arrays in the
compute dtype (never element by element), so the tirx interpreter and backend interpreters (e.g.
an NKI ``activation`` or ``tensor_reduce``) can share it.

    >>> reduce("max", np.array([[1.0, 3.0], [2.0, 0.0]]), (1,))
    array([[3.],
           [2.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from tirx_mlir.dialects.tirx import rules


def silu(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x)."""
    return x / (1.0 + np.exp(-x))


UNARY: dict[str, Callable[[Any], Any]] = {
    "exp": np.exp, "exp2": np.exp2, "log2": np.log2, "sqrt": np.sqrt,
    "reciprocal": np.reciprocal, "silu": silu,
}
"""Unary function name -> numpy function (``reciprocal`` on a float array is 1/x)."""

BINARY: dict[str, np.ufunc] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "fdiv": np.true_divide,
    "maximum": np.maximum, "minimum": np.minimum,
}
"""Binary function name -> numpy ufunc. maximum/minimum propagate NaN (like arith.maximumf)."""

REDUCE: dict[str, np.ufunc] = {"sum": np.add, "max": np.maximum, "min": np.minimum}
"""Reduction name -> the ufunc it folds with (NaN propagates through max and min)."""

assert set(UNARY) == set(rules.UNARY_FUNCS), "tile_semantics.UNARY disagrees with rules.py"
assert set(BINARY) == set(rules.BINARY_FUNCS), "tile_semantics.BINARY disagrees with rules.py"
assert set(REDUCE) == set(rules.REDUCE_FUNCS), "tile_semantics.REDUCE disagrees with rules.py"


def reduce(name: str, x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """``name``-reduction of ``x`` over normalized ``axes``, keeping the reduced dims as 1."""
    return REDUCE[name].reduce(x, axis=tuple(axes), keepdims=True)


def fold(name: str, old: Any, new: Any) -> Any:
    """Combine a previous reduction result with a new one (``accum``)."""
    return REDUCE[name](old, new)


def bias_scale(x: Any, scale: Any = None, bias: Any = None) -> Any:
    """``x * scale + bias`` (either may be absent; each may broadcast against the others)."""
    if scale is not None:
        x = x * scale
    return x if bias is None else x + bias


def block_scale(x: np.ndarray, factors: np.ndarray, what: str) -> np.ndarray:
    """Scale ``x`` [rows, K] by per-block factors [rows, K / block] along K."""
    rows, k = x.shape
    if factors.ndim != 2 or factors.shape[0] != rows or factors.shape[1] == 0 or \
            k % factors.shape[1]:
        raise ValueError(f"scale factors {what} of shape {list(factors.shape)} do not tile an "
                         f"operand of shape [{rows}, {k}]; expected [{rows}, K / block]")
    return x * np.repeat(factors, k // factors.shape[1], axis=1)
