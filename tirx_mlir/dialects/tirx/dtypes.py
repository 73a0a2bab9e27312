"""Element types a tirx buffer may hold: their sizes and kinds, and their numpy counterparts.

One static table lists every supported element type with its size, kind and numpy dtype name (bf16
and fp8 through ``ml_dtypes``). The verifier, the passes and the printers read sizes and kinds from
it without importing numpy; `numpy_dtype` and `compute_dtype` (the interpreter, the runtime)
import numpy and ml_dtypes on first use. The set of supported element types is stated once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from xdsl.dialects import builtin
from xdsl.ir import Attribute

from tirx_mlir.type_tests import KindOf

if TYPE_CHECKING:
    import numpy as np


class ElementType(NamedTuple):
    bits: int
    kind: str
    """``f`` float, ``i`` signed integer, ``u`` unsigned integer, ``b`` bool."""
    numpy_name: str
    """numpy's (or ``ml_dtypes.``-prefixed) name of the dtype."""
    make: object
    """The xDSL type factory."""


_TABLE: dict[str, ElementType] = {
    "f16": ElementType(16, "f", "float16", lambda: builtin.f16),
    "bf16": ElementType(16, "f", "ml_dtypes.bfloat16", lambda: builtin.bf16),
    "f32": ElementType(32, "f", "float32", lambda: builtin.f32),
    "f64": ElementType(64, "f", "float64", lambda: builtin.f64),
    "f8E4M3FN": ElementType(8, "f", "ml_dtypes.float8_e4m3fn",
                            lambda: builtin.Float8E4M3FNType()),
    "f8E5M2": ElementType(8, "f", "ml_dtypes.float8_e5m2", lambda: builtin.Float8E5M2Type()),
    "i1": ElementType(8, "b", "bool_", lambda: builtin.i1),
    "i8": ElementType(8, "i", "int8", lambda: builtin.i8),
    "i16": ElementType(16, "i", "int16", lambda: builtin.i16),
    "i32": ElementType(32, "i", "int32", lambda: builtin.i32),
    "i64": ElementType(64, "i", "int64", lambda: builtin.i64),
    "ui8": ElementType(8, "u", "uint8",
                       lambda: builtin.IntegerType(8, builtin.Signedness.UNSIGNED)),
    "ui16": ElementType(16, "u", "uint16",
                        lambda: builtin.IntegerType(16, builtin.Signedness.UNSIGNED)),
    "ui32": ElementType(32, "u", "uint32",
                        lambda: builtin.IntegerType(32, builtin.Signedness.UNSIGNED)),
}
"""MLIR spelling -> its entry. ``bits`` is the storage size (i1 is stored as a byte)."""

SUPPORTED_ELEMENT_TYPES = tuple(_TABLE)


_NAME_KIND = KindOf({"integer": (builtin.IntegerType,), "index": (builtin.IndexType,)})
"""How `type_name` spells a type of each class, answered once per class."""


def type_name(t: Attribute) -> str:
    """The MLIR spelling of an element type (``f32``, ``bf16``, ``f8E4M3FN``...)."""
    kind = _NAME_KIND(t)
    if kind == "integer":
        prefix = "ui" if t.signedness.data == builtin.Signedness.UNSIGNED else "i"  # type: ignore[attr-defined]
        return f"{prefix}{t.width.data}"  # type: ignore[attr-defined]
    if kind == "index":
        return "index"
    return t.name


def is_supported(t: Attribute) -> bool:
    return type_name(t) in _TABLE


def itemsize(t: Attribute) -> int:
    """Bytes per element of an element type; raises KeyError for unsupported types."""
    return _TABLE[type_name(t)].bits // 8


@lru_cache(maxsize=None)
def _numpy_dtype_of(name: str) -> "np.dtype":
    import numpy as np

    spelling = _TABLE[name].numpy_name
    if spelling.startswith("ml_dtypes."):
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, spelling.split(".", 1)[1]))
    return np.dtype(getattr(np, spelling))


def numpy_dtype(t: Attribute) -> "np.dtype":
    """numpy dtype of an element type; raises KeyError for unsupported types."""
    return _numpy_dtype_of(type_name(t))


@lru_cache(maxsize=None)
def element_type(name: str) -> Attribute:
    """xDSL type for an MLIR spelling (``"bf16"`` -> ``builtin.bf16``)."""
    return _TABLE[name].make()  # type: ignore[operator]


def from_numpy(dtype: "np.dtype") -> Attribute:
    import numpy as np

    for name in _TABLE:
        if _numpy_dtype_of(name) == np.dtype(dtype):
            return element_type(name)
    raise KeyError(f"no tirx element type for numpy dtype {dtype}")


def is_float(t: Attribute) -> bool:
    """Raises KeyError for unsupported types."""
    return _TABLE[type_name(t)].kind == "f"


def is_integer(t: Attribute) -> bool:
    entry = _TABLE.get(type_name(t))
    return entry is not None and entry.kind != "f"


def bit_width(t: Attribute) -> int:
    return 1 if type_name(t) == "i1" else _TABLE[type_name(t)].bits


def compute_dtype(t: Attribute) -> "np.dtype":
    """The dtype arithmetic runs in for values of ``t``: f64 stays f64, other floats use f32,
    integers use int64 (then wrap on store)."""
    import numpy as np

    name = type_name(t)
    if name == "f64":
        return np.dtype(np.float64)
    if is_float(t):
        return np.dtype(np.float32)
    return np.dtype(np.int64)
