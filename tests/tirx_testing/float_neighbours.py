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


def exact_roundings(compare, candidate: np.ndarray) -> dict[str, np.ndarray]:
    """The four roundings (rn, rz, rm, rp) of exact values to ``candidate``'s float dtype,
    found by nextafter from ``candidate`` (a value of that dtype next to or at each exact
    value, NaN where there is none; the flat index ``i`` names an element). ``compare(i, v)`` is the sign (-1, 0, 1) of
    the Python ``Fraction`` ``v`` minus exact value ``i`` (`compare_with` for rational values;
    a square root of ``a`` compares ``v * v`` with ``a``). Nearest: the neighbour on the
    midpoint's side, a tie to the even one; inf lies beyond every value, and counts as the next
    power of two for nearest (IEEE 754's overflow). Exact zeros come out +0: the sign of an
    exact zero is the caller's rule."""
    from fractions import Fraction

    dt = candidate.dtype
    flat = candidate.reshape(-1)
    inf = np.asarray(np.inf, dt)
    top = Fraction(2) ** int(np.finfo(dt).maxexp)
    out = {m: np.empty_like(flat) for m in ("rn", "rz", "rm", "rp")}

    def value(v):
        return top if v == np.inf else -top if v == -np.inf else Fraction(float(v))

    for i, c in enumerate(flat):
        if np.isnan(c):
            for m in out:
                out[m][i] = c
            continue
        s = 1 if c == np.inf else -1 if c == -np.inf else compare(i, value(c))
        with np.errstate(over="ignore"):
            lo = np.nextafter(c, -inf) if s > 0 else c
            hi = np.nextafter(c, inf) if s < 0 else c
        if s == 0:
            lo = hi = c + np.asarray(0, dt)  # -0 -> +0
        mid = compare(i, (value(lo) + value(hi)) / 2)
        even_lo = int(np.asarray(lo).view(f"u{dt.itemsize}")) % 2 == 0
        out["rn"][i] = lo if mid > 0 or (mid == 0 and even_lo) else hi
        out["rm"][i], out["rp"][i] = lo, hi
        out["rz"][i] = lo if compare(i, Fraction(0)) < 0 else hi
    return {m: a.reshape(candidate.shape) for m, a in out.items()}


def compare_with(exact):
    """`exact_roundings`' ``compare`` for exact rational values (a list of ``Fraction``)."""
    def compare(i, v):
        return (v > exact[i]) - (v < exact[i])
    return compare
