"""Elements of sub-32-bit PTX types packed in b32 registers, as the PTX ISA defines them for
``mma``/``ldmatrix``/``wgmma`` fragments ("Matrix Fragments for mma.m16n8k*": "a .f16x2 register
holds two .f16 elements", the element with the lower index in the lower bits).

A register array is int32 of shape ``(..., regs)``; its elements are ``(..., regs * per_reg)``
in register order, lowest bits first. ``.tf32`` elements live in a full 32-bit register holding an
f32 bit pattern, of which the tensor core reads the upper 19 bits (sign, 8-bit exponent, 10-bit
mantissa): the low 13 bits are ignored (truncated), so unpacking clears them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.dialects.tirx import dtypes

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

_ELEMENT_TYPES: dict[str, str] = {
    "f16": "f16", "bf16": "bf16", "tf32": "f32", "f32": "f32", "e4m3": "f8E4M3FN",
    "e5m2": "f8E5M2", "s8": "i8", "u8": "ui8", "s32": "i32", "b16": "ui16",
}
"""PTX element type -> the tirx element type of one element (tf32: its f32 container), whose
numpy dtype (`dtypes.numpy_dtype`) it is unpacked to. Read through `dtypes` so that compiling,
which asks only `per_register`, never imports ml_dtypes (hundreds of ms in a fresh process)."""

TF32_IGNORED_BITS = 0x1FFF


@lru_cache(maxsize=None)
def element_dtype(ptx_type: str) -> np.dtype:
    return dtypes.numpy_dtype(dtypes.element_type(_ELEMENT_TYPES[ptx_type]))


@lru_cache(maxsize=None)
def per_register(ptx_type: str) -> int:
    """How many elements of ``ptx_type`` one b32 register holds."""
    return 4 // dtypes.itemsize(dtypes.element_type(_ELEMENT_TYPES[ptx_type]))


def unpack(regs: np.ndarray, ptx_type: str) -> np.ndarray:
    """The elements of b32 registers ``(..., R)`` as ``(..., R * per_register)``, low bits first."""
    words = np.ascontiguousarray(regs, dtype="<i4")
    if ptx_type == "tf32":
        words = words & ~TF32_IGNORED_BITS
    dt = element_dtype(ptx_type).newbyteorder("<")
    return words.view(dt).astype(element_dtype(ptx_type), copy=False)


def pack(elements: np.ndarray, ptx_type: str) -> np.ndarray:
    """b32 registers ``(..., E / per_register)`` holding ``elements`` ``(..., E)`` (already of
    the element dtype, or rounded to it here), the first element in the lowest bits."""
    dt = element_dtype(ptx_type).newbyteorder("<")
    arr = np.ascontiguousarray(elements).astype(dt, copy=False)
    return np.ascontiguousarray(arr).view("<i4").astype(np.int32, copy=False)


def as_b32(values: np.ndarray) -> np.ndarray:
    """The bits of 32-bit lane values (int32 or float32 registers) as int32."""
    arr = np.ascontiguousarray(values)
    if arr.dtype.itemsize != 4:
        raise TypeError(f"a b32 register holds 32-bit values, not {arr.dtype}")
    return arr.view(np.int32)
