"""Element types a tirx buffer may hold, and their numpy counterparts.

One table maps MLIR element types to numpy dtypes (bf16 and fp8 through ``ml_dtypes``). The
verifier, the interpreter and the printers all read it, so the set of supported element types is
stated once.
"""

from __future__ import annotations

from functools import lru_cache

import ml_dtypes
import numpy as np
from xdsl.dialects import builtin
from xdsl.ir import Attribute

# MLIR spelling -> (numpy dtype, xDSL type factory)
_TABLE: dict[str, tuple[np.dtype, object]] = {
    "f16": (np.dtype(np.float16), lambda: builtin.f16),
    "bf16": (np.dtype(ml_dtypes.bfloat16), lambda: builtin.bf16),
    "f32": (np.dtype(np.float32), lambda: builtin.f32),
    "f64": (np.dtype(np.float64), lambda: builtin.f64),
    "f8E4M3FN": (np.dtype(ml_dtypes.float8_e4m3fn), lambda: builtin.Float8E4M3FNType()),
    "f8E5M2": (np.dtype(ml_dtypes.float8_e5m2), lambda: builtin.Float8E5M2Type()),
    "i1": (np.dtype(np.bool_), lambda: builtin.i1),
    "i8": (np.dtype(np.int8), lambda: builtin.i8),
    "i16": (np.dtype(np.int16), lambda: builtin.i16),
    "i32": (np.dtype(np.int32), lambda: builtin.i32),
    "i64": (np.dtype(np.int64), lambda: builtin.i64),
    "ui8": (np.dtype(np.uint8), lambda: builtin.IntegerType(8, builtin.Signedness.UNSIGNED)),
    "ui16": (np.dtype(np.uint16), lambda: builtin.IntegerType(16, builtin.Signedness.UNSIGNED)),
    "ui32": (np.dtype(np.uint32), lambda: builtin.IntegerType(32, builtin.Signedness.UNSIGNED)),
}

SUPPORTED_ELEMENT_TYPES = tuple(_TABLE)


def type_name(t: Attribute) -> str:
    """The MLIR spelling of an element type (``f32``, ``bf16``, ``f8E4M3FN``...)."""
    if isinstance(t, builtin.IntegerType):
        prefix = "ui" if t.signedness.data == builtin.Signedness.UNSIGNED else "i"
        return f"{prefix}{t.width.data}"
    if isinstance(t, builtin.IndexType):
        return "index"
    return t.name


def is_supported(t: Attribute) -> bool:
    return type_name(t) in _TABLE


def numpy_dtype(t: Attribute) -> np.dtype:
    """numpy dtype of an element type; raises KeyError for unsupported types."""
    return _TABLE[type_name(t)][0]


@lru_cache(maxsize=None)
def element_type(name: str) -> Attribute:
    """xDSL type for an MLIR spelling (``"bf16"`` -> ``builtin.bf16``)."""
    return _TABLE[name][1]()  # type: ignore[operator]


def from_numpy(dtype: np.dtype) -> Attribute:
    for name, (npdt, _) in _TABLE.items():
        if npdt == np.dtype(dtype):
            return element_type(name)
    raise KeyError(f"no tirx element type for numpy dtype {dtype}")


def is_float(t: Attribute) -> bool:
    return np.issubdtype(numpy_dtype(t), np.floating) or type_name(t) in (
        "bf16", "f8E4M3FN", "f8E5M2")


def is_integer(t: Attribute) -> bool:
    return type_name(t) in _TABLE and not is_float(t)


def bit_width(t: Attribute) -> int:
    return numpy_dtype(t).itemsize * 8 if type_name(t) != "i1" else 1


def compute_dtype(t: Attribute) -> np.dtype:
    """The dtype arithmetic runs in for values of ``t``: f64 stays f64, other floats use f32,
    integers use int64 (then wrap on store)."""
    np_t = numpy_dtype(t)
    if np_t == np.float64:
        return np_t
    if is_float(t):
        return np.dtype(np.float32)
    return np.dtype(np.int64)
