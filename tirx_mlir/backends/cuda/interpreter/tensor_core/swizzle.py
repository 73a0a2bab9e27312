"""The shared-memory swizzle patterns of TMA and wgmma (PTX ISA "Shared Memory Matrix Layout"
of wgmma.mma_async and the tensor-map swizzle modes; CUTLASS ``cute/swizzle.hpp``,
``Swizzle<B, 4, 3>`` applied to byte addresses).

A pattern permutes the 16-byte chunks of each ``16 * 2^B``-byte row: address bits ``[4, 4+B)``
(the chunk in the row) are XORed with bits ``[7, 7+B)`` (the 128-byte line within the repeating
pattern of ``8 * 16 * 2^B`` bytes). ``B`` is 3 for 128B (pattern of 1024 bytes), 2 for 64B
(512) and 1 for 32B (256). Each pattern is its own inverse.

The wgmma descriptor's ``base offset`` (3 bits) says where the repeating pattern starts when it
does not start on a pattern boundary: ``base_offset = (pattern start >> 7) & 7``; the line used
for the XOR is then counted from the pattern start, ``((address >> 7) - base_offset)``.
"""

from __future__ import annotations

import enum

import numpy as np


class Swizzle(enum.IntEnum):
    """The wgmma descriptor's 2-bit layout type (bits 62-63) and its pattern."""

    NONE = 0
    B128 = 1
    B64 = 2
    B32 = 3

    @classmethod
    def of_span(cls, span: int) -> "Swizzle":
        """The mode of a swizzle span in bytes (0, 32, 64, 128), as tensor maps name it."""
        return {0: cls.NONE, 32: cls.B32, 64: cls.B64, 128: cls.B128}[span]

    @property
    def bits(self) -> int:
        """``B`` of ``Swizzle<B, 4, 3>``: log2 of the 16-byte chunks in one swizzled row."""
        return {Swizzle.NONE: 0, Swizzle.B128: 3, Swizzle.B64: 2, Swizzle.B32: 1}[self]

    @property
    def row_bytes(self) -> int:
        """Bytes of one swizzled row (16 for NONE: one chunk)."""
        return 16 << self.bits

    @property
    def pattern_bytes(self) -> int:
        """Bytes after which the pattern repeats (its start must be aligned to this)."""
        return 8 * self.row_bytes


def swizzle(addresses: np.ndarray, mode: Swizzle, base_offset: int = 0) -> np.ndarray:
    """Byte addresses after ``mode``'s XOR pattern (module docstring)."""
    addr = np.asarray(addresses, dtype=np.int64)
    if mode.bits == 0:
        return addr
    mask = (1 << mode.bits) - 1
    line = ((addr >> 7) - base_offset) & mask
    return addr ^ (line << 4)
