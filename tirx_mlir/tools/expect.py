"""``tirx-run --expect REF.npy ... [--rtol R --atol A]`` / ``--expect-dir DIR``: compare a run's
outputs with reference arrays.

An output matches when every element satisfies ``|out - ref| <= atol + rtol * |ref|`` (numpy's
``isclose``), with NaN matching NaN (a kernel that must leave NaN says so in its reference);
integers compare exactly unless a tolerance is given. Each output gets one line: ``matches``
or ``MISMATCH`` with the count, the first mismatching index and its two values, and the largest
absolute and relative errors over the finite elements; any mismatch (or a shape difference)
makes tirx-run exit 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tirx_mlir.interpreter.runtime import is_float_dtype

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6


@dataclass(frozen=True)
class Comparison:
    name: str
    ok: bool
    line: str


def compare(name: str, out: np.ndarray, ref: np.ndarray, rtol: float, atol: float) -> Comparison:
    """The verdict and report line for output ``name``."""
    if out.shape != ref.shape:
        return Comparison(name, False, f"%{name}: MISMATCH: shape {list(out.shape)}, expected "
                                       f"{list(ref.shape)}")
    got = out.astype(np.float64)
    want = ref.astype(np.float64)
    close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    finite = np.isfinite(got) & np.isfinite(want)
    abs_err = np.abs(got - want)[finite]
    rel_err = abs_err / np.maximum(np.abs(want[finite]), np.finfo(np.float64).tiny)
    errors = (f"max abs err {abs_err.max():.3g}, max rel err {rel_err.max():.3g}"
              if abs_err.size else "no finite elements")
    if close.all():
        return Comparison(name, True, f"%{name}: matches ({errors})")
    bad = np.argwhere(~close)
    first = tuple(int(i) for i in bad[0])
    return Comparison(name, False,
                      f"%{name}: MISMATCH in {len(bad)} of {out.size} elements; first at "
                      f"{list(first)}: got {_value(out[first])}, expected {_value(ref[first])} ({errors}; "
                      f"rtol {rtol:g}, atol {atol:g})")


def _value(x) -> str:
    arr = np.asarray(x)
    return f"{arr.astype(np.float64).item():.9g}" if is_float_dtype(arr.dtype) else \
        str(arr.item())
