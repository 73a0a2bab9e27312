"""The wgmma shared-memory matrix descriptor and the matrix elements it denotes: PTX ISA
"Matrix Descriptor Format" and "Shared Memory Matrix Layout" (Asynchronous Warpgroup Level
Matrix Multiply-Accumulate), with the canonical layouts of CUTLASS's ``make_gmma_desc``
(``include/cute/atom/mma_traits_sm90_gmma.hpp``).

The 64-bit descriptor: bits 0-13 start address >> 4, 16-29 leading dimension byte offset (LBO)
>> 4, 32-45 stride dimension byte offset (SBO) >> 4, 49-51 base offset, 62-63 swizzle mode
(0 none, 1 128B, 2 64B, 3 32B).

An operand is an ``R x K`` matrix (A: M x K; B: N x K, i.e. B transposed) whose K extent is 32
bytes per instruction. With ``T = 16 / element bytes`` elements per 16-byte chunk and ``S`` the
swizzle row bytes (32, 64, 128), the byte offset of element (r, k) from the start address is:

* K-major (``tnsp = 0``), no swizzle: 8x16-byte core matrices,
  ``(r % 8) * 16 + (r // 8) * SBO + (k % T) * e + (k // T) * LBO``;
* K-major, swizzled: rows of S bytes, ``(r % 8) * S + (r // 8) * SBO + k * e`` (LBO unused);
* MN-major (``tnsp = 1``), no swizzle: ``(r % T) * e + (r // T) * SBO + (k % 8) * 16 +
  (k // 8) * LBO``;
* MN-major, swizzled (``W = S / 16``): ``(r % T) * e + ((r // T) % W) * 16 + (r // (T*W)) * LBO
  + (k % 8) * S + (k // 8) * SBO``;

and the address read is the start address plus that offset, after the swizzle pattern
(backends/cuda/layout/swizzle.py) of the descriptor's mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import element_dtype
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle, swizzle

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

K_BYTES = 32
_FIELD = 0x3FFF


@dataclass(frozen=True)
class MatrixDescriptor:
    """A decoded descriptor; ``start``, ``leading`` and ``stride`` are in bytes."""

    start: int
    leading: int
    stride: int
    base_offset: int = 0
    swizzle: Swizzle = Swizzle.NONE

    @classmethod
    def decode(cls, value: int) -> "MatrixDescriptor":
        v = int(value) & (2**64 - 1)
        return cls(start=(v & _FIELD) << 4, leading=((v >> 16) & _FIELD) << 4,
                   stride=((v >> 32) & _FIELD) << 4, base_offset=(v >> 49) & 7,
                   swizzle=Swizzle(v >> 62))

    def encode(self) -> int:
        """The descriptor as a signed 64-bit integer (an ``i64`` lane value)."""
        v = ((self.start >> 4) & _FIELD) | (((self.leading >> 4) & _FIELD) << 16) | \
            (((self.stride >> 4) & _FIELD) << 32) | ((self.base_offset & 7) << 49) | \
            (int(self.swizzle) << 62)
        return v - 2**64 if v >= 2**63 else v


def operand_addresses(desc: MatrixDescriptor, rows: int, k: int, elem_bytes: int,
                      mn_major: bool) -> np.ndarray:
    """Shared-memory byte addresses ``(rows, k)`` of the operand elements (module docstring)."""
    r = np.arange(rows, dtype=np.int64)[:, None]
    kk = np.arange(k, dtype=np.int64)[None, :]
    t, s, e = 16 // elem_bytes, desc.swizzle.row_bytes, elem_bytes
    lbo, sbo = desc.leading, desc.stride
    if not mn_major and desc.swizzle == Swizzle.NONE:
        off = (r % 8) * 16 + (r // 8) * sbo + (kk % t) * e + (kk // t) * lbo
    elif not mn_major:
        off = (r % 8) * s + (r // 8) * sbo + kk * e
    elif desc.swizzle == Swizzle.NONE:
        off = (r % t) * e + (r // t) * sbo + (kk % 8) * 16 + (kk // 8) * lbo
    else:
        w = s // 16
        off = (r % t) * e + ((r // t) % w) * 16 + (r // (t * w)) * lbo + (kk % 8) * s + \
            (kk // 8) * sbo
    return swizzle(desc.start + off, desc.swizzle, desc.base_offset)


def read_operand(smem: np.ndarray, desc: MatrixDescriptor, rows: int, ptx_type: str,
                 mn_major: bool, on_read=None) -> np.ndarray:
    """The ``rows x K`` operand (elements of ``ptx_type``) a descriptor denotes in one CTA's
    shared-memory bytes ``smem``; K is 32 bytes of elements. ``on_read(addresses, nbytes)``, when
    given, sees the elements' byte addresses before they are read (the SIMT interpreter checks
    that no asynchronous copy still owns one)."""
    dt = element_dtype(ptx_type)
    addrs = operand_addresses(desc, rows, K_BYTES // dt.itemsize, dt.itemsize, mn_major)
    lo, hi = int(addrs.min()), int(addrs.max()) + dt.itemsize
    if lo < 0 or hi > smem.shape[0] or (addrs % dt.itemsize).any():
        raise ValueError(f"the matrix descriptor {desc} spans shared bytes [{lo}, {hi}), outside "
                         f"the {smem.shape[0]} bytes of the CTA (or misaligned)")
    if on_read is not None:
        on_read(addrs, dt.itemsize)
    data = smem[addrs[..., None] + np.arange(dt.itemsize)]
    return np.ascontiguousarray(data).view(dt.newbyteorder("<"))[..., 0].astype(dt)
