"""The reference the rounding tests compare with: a value's neighbours in a float type, found by
numpy's nextafter from the nearest one (independent of the rounding code under test)."""

from __future__ import annotations

import numpy as np


def neighbours(x: np.ndarray, dt) -> tuple[np.ndarray, np.ndarray]:
    """The neighbours of each ``x`` (float64) in ``dt`` below and above it (equal when exact);
    past the largest finite value the side toward x is inf."""
    with np.errstate(over="ignore"):
        near = x.astype(dt)
        inf = np.asarray(np.inf, dt)
        lo = np.where(near.astype(np.float64) > x, np.nextafter(near, -inf), near)
        hi = np.where(near.astype(np.float64) < x, np.nextafter(near, inf), near)
    return lo, hi
