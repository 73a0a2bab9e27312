"""Helpers for the interpreter tests: build a one-kernel module from a body, run it.

Imported by the tests as ``import interp_harness as tx`` (conftest.py puts this folder on the path).
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

from tirx_mlir.located_parser import parse_module
from tirx_mlir.interpreter import KernelRunner, verify_module
from tirx_testing.ir_text import buffer_type, kernel_text

NP = {
    "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn), "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32), "i64": np.dtype(np.int64), "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16), "ui32": np.dtype(np.uint32),
}
FLOATS = ("f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2")
INTS = ("i8", "i32", "i64", "ui8")


buf = buffer_type
"""``buf("4x8xf32")`` -> ``!tirx.buffer<4x8xf32, global>``."""


def kernel(ins: Sequence[tuple[str, str]], outs: Sequence[tuple[str, str]], body: str,
           launch: str = "grid [1] threads [1]", name: str = "k") -> str:
    """`kernel_text` with global parameters given as (name, "4x8xf32")."""
    return kernel_text(body, {n: buf(s) for n, s in ins}, {n: buf(s) for n, s in outs},
                       launch=launch, name=name)


def run(text: str, *arrays, name: str = "k.mlir", **kwargs) -> tuple[np.ndarray, ...]:
    """Parse (as file ``name``), verify and run the module's only kernel; returns all outputs."""
    module = parse_module(text, name)
    verify_module(module)
    return KernelRunner(module)(*arrays, **kwargs)


def sample(spec_dtype: str, shape: Sequence[int], rng: np.random.Generator,
           positive: bool = False) -> np.ndarray:
    """Random test data of an MLIR element type (floats normal, ints small)."""
    dt = NP[spec_dtype]
    if spec_dtype in FLOATS:
        x = rng.standard_normal(shape)
        x = np.abs(x) + 0.25 if positive else x
        return x.astype(np.float32).astype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    low, high = (0, 20) if dt.kind == "u" or positive else (-20, 20)
    return rng.integers(low, high, shape).astype(dt)


def compute_dtype(*names: str) -> np.dtype:
    """The reference's compute dtype: f64 if any f64, f32 for other floats, else int64."""
    if "f64" in names:
        return np.dtype(np.float64)
    if any(n in FLOATS for n in names):
        return np.dtype(np.float32)
    return np.dtype(np.int64)


def assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal dtype and equal values, NaN matching NaN (also for bf16/fp8, where numpy's own
    comparison does not treat NaNs as equal)."""
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    if actual.dtype.kind not in "biu":
        actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    np.testing.assert_array_equal(actual, expected)
