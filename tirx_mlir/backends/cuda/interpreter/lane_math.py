"""Binary combines of lane values shared by reductions and atomics: ``add`` (``sum``) wrapping
for integers and rounding to the type for floats, ``max``/``min`` (signed, or unsigned for
``ui32``/``.u32`` lanes, which may be held signed), ``and``/``or``/``xor``.

``max``/``min`` are the C++ ``(a > b) ? a : b`` / ``(a < b) ? a : b``: with a NaN they give the
second operand.
"""

from __future__ import annotations

import numpy as np

_UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
             np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def unsigned_view(a: np.ndarray) -> np.ndarray:
    """An integer lane array read unsigned (an unsigned one as it is)."""
    return a.view(_UNSIGNED[a.dtype]) if a.dtype in _UNSIGNED else a


def combine(kind: str, unsigned: bool = False):
    """``f(a, b)`` of ``kind`` (``add``/``sum``, ``max``, ``min``, ``and``, ``or``, ``xor``)."""
    order = unsigned_view if unsigned else (lambda a: a)

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            if kind in ("sum", "add"):
                return (a + b).astype(a.dtype, copy=False)
            if kind == "and":
                return a & b
            if kind == "or":
                return a | b
            if kind == "xor":
                return a ^ b
            if kind in ("max", "min"):
                x, y = order(a), order(b)
                return np.where(x > y if kind == "max" else x < y, a, b)
        raise ValueError(f"no combine {kind!r}")
    return run
