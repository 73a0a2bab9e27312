"""PTX virtual registers: which register class holds a value of each MLIR type, and their
declarations.

=====================================  ==========  ==========================================
MLIR type                              class       PTX declaration
=====================================  ==========  ==========================================
i1                                     ``%p``      ``.reg .pred %p<N>;``
i8, i16, f16, bf16                     ``%rs``     ``.reg .b16 %rs<N>;``
i32 (any signedness)                   ``%r``      ``.reg .b32 %r<N>;``
i64, index (64-bit in PTX)             ``%rd``     ``.reg .b64 %rd<N>;``
f32                                    ``%f``      ``.reg .f32 %f<N>;``
f64                                    ``%fd``     ``.reg .f64 %fd<N>;``
vector<2xf16>, vector<2xbf16>          ``%r``      one b32 (a packed pair, as half2)
vector<N x T>                          N of T's    16-bit lanes packed in pairs into b32
=====================================  ==========  ==========================================

Registers are numbered from 1 per class and per kernel, in program order, so the text is the
same on every run; `Registers.declarations` lists one ``.reg`` line per class used, then one per
named array (`Registers.array`: a promoted local array, ``.reg .f32 %acc_<8>;``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import (BFloat16Type, Float16Type, Float32Type, Float64Type,
                                   IndexType, IntegerType, VectorType)
from xdsl.ir import Attribute


@dataclass(frozen=True, eq=False)
class RegClass:
    """A register class; the six below are the only ones, so identity is equality (and the
    hash is the object's: `Registers.counts` is keyed by class for every register made)."""

    prefix: str
    ptx_type: str
    bits: int


PRED = RegClass("%p", "pred", 1)
B16 = RegClass("%rs", "b16", 16)
B32 = RegClass("%r", "b32", 32)
B64 = RegClass("%rd", "b64", 64)
F32 = RegClass("%f", "f32", 32)
F64 = RegClass("%fd", "f64", 64)
CLASSES = (PRED, B16, B32, B64, F32, F64)
BY_PTX_TYPE = {c.ptx_type: c for c in CLASSES}
I32, I64 = IntegerType(32), IntegerType(64)


_BY_WIDTH = {1: PRED, 8: B16, 16: B16, 32: B32, 64: B64}


def scalar_class(t: Attribute) -> RegClass | None:
    """The register class of a scalar type, None for a type PTX registers do not hold."""
    if isinstance(t, IndexType):
        return B64
    if isinstance(t, IntegerType):
        return _BY_WIDTH.get(t.width.data)
    if isinstance(t, Float16Type | BFloat16Type):
        return B16
    if isinstance(t, Float32Type):
        return F32
    if isinstance(t, Float64Type):
        return F64
    return None


def value_classes(t: Attribute) -> list[RegClass] | None:
    """The registers a value of type ``t`` occupies (a vector: several), None if none can
    (a fresh list: callers may keep it)."""
    by_id = _BY_ID.get(id(t))
    if by_id is None:  # hashing a type hashes its parameters (in Python): once per object
        known = _VALUE_CLASSES.get(t, _UNKNOWN)
        if known is _UNKNOWN:
            known = _VALUE_CLASSES[t] = _value_classes(t)
        if len(_BY_ID) >= _MAX_BY_ID:
            _BY_ID.clear()
        by_id = _BY_ID[id(t)] = (t, known)
    known = by_id[1]
    return None if known is None else list(known)


_UNKNOWN = object()
_VALUE_CLASSES: dict[Attribute, list[RegClass] | None] = {}
"""type -> `_value_classes` (types are immutable attributes, and a kernel has few)."""
_BY_ID: dict[int, tuple[Attribute, list[RegClass] | None]] = {}
"""id of a type object -> (it, `_value_classes`): the entry keeps the object, so its id is
not reused while the entry lives; cleared when it holds `_MAX_BY_ID` (each parse makes new
type objects)."""
_MAX_BY_ID = 4096


def _value_classes(t: Attribute) -> list[RegClass] | None:
    if not isinstance(t, VectorType):
        cls = scalar_class(t)
        return None if cls is None else [cls]
    if t.get_num_dims() != 1 or t.get_num_scalable_dims():
        return None
    n, elem = t.get_shape()[0], scalar_class(t.get_element_type())
    if elem is None or elem is PRED:
        return None
    if elem is B16:
        return None if n % 2 else [B32] * (n // 2)
    return [elem] * n


class Registers:
    """Hands out numbered registers per class (one kernel's)."""

    def __init__(self) -> None:
        self.counts: dict[RegClass, int] = {}
        self.arrays: list[tuple[RegClass, str, int]] = []

    def fresh(self, cls: RegClass) -> str:
        n = self.counts.get(cls, 0) + 1
        self.counts[cls] = n
        return f"{cls.prefix}{n}"

    def array(self, cls: RegClass, base: str, n: int) -> list[str]:
        """``n`` registers of ``cls`` named ``%<base>0`` .. (``base`` unique in the kernel and
        not a class prefix: the caller's names end in ``_``)."""
        self.arrays.append((cls, base, n))
        return [f"%{base}{i}" for i in range(n)]

    def declarations(self) -> list[str]:
        return [f".reg .{c.ptx_type} {c.prefix}<{self.counts[c] + 1}>;"
                for c in CLASSES if c in self.counts] + \
            [f".reg .{c.ptx_type} %{base}<{n}>;" for c, base, n in self.arrays]
