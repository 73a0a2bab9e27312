"""Array helpers of the checks' hot paths.

``np.unique`` of numpy 2.x hashes its input, which costs ~10x a sort on the few hundred lanes of
one access; these sort instead.
"""

from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (``np.unique`` without its hashing)."""
    ordered = np.sort(values, kind="stable")
    if ordered.size < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def dense_index(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct, inverse)``: the distinct values ascending and each value's index among them."""
    distinct = sorted_unique(values)
    return distinct, np.searchsorted(distinct, values)
