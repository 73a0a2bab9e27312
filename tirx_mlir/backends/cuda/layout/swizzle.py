"""Swizzled shared-memory layouts: the 32/64/128-byte XOR patterns of TMA and wgmma, as byte
permutations (what the hardware and the SIMT interpreter apply) and as the tile layouts shared
buffers carry (``TileLayout`` with a ``swizzle(M, B, S)``), and the choice of a swizzle for a
shared tile.

**The pattern** (PTX ISA "Shared Memory Matrix Layout" of wgmma.mma_async and the tensor-map
swizzle modes of ``cuTensorMapEncodeTiled``; CUTLASS ``cute/swizzle.hpp``, ``Swizzle<B, 4, 3>``
on byte addresses) permutes the 16-byte chunks of each ``16 * 2^B``-byte row: address bits
``[4, 4+B)`` (the chunk in the row) are XORed with bits ``[7, 7+B)`` (the 128-byte line within
the repeating pattern of ``8 * 16 * 2^B`` bytes). ``B`` is 3 for 128B (pattern of 1024 bytes),
2 for 64B (512) and 1 for 32B (256). Each pattern is its own inverse. The wgmma descriptor's
``base offset`` (3 bits) says where the pattern starts when it does not start on a pattern
boundary: ``base_offset = (pattern start >> 7) & 7``; the line used for the XOR is then counted
from the pattern start, ``((address >> 7) - base_offset)``.

**As a tile layout** the same pattern on element offsets is TIRx's ``ComposeLayout`` swizzle
``(M, B, S)`` with ``M = log2(16 / element bytes)`` (elements per chunk), ``B`` as above and
``S = 3`` (apache/tvm ``python/tvm/tirx/layout.py``; fp16 with 128B is ``(3, 3, 3)``): the
element offset's chunk index ``m >> M`` has its bits ``[0, B)`` XORed with bits ``[3, 3+B)``,
which is the byte pattern when the buffer starts on a pattern boundary (`ALIGNMENT`).

**A swizzled tile** ``[rows, cols]`` (cols contiguous: K for a K-major wgmma operand, M or N
for an MN-major one, the inner box dim of a TMA copy) is stored in column blocks of ``W =
row bytes / element bytes`` elements: ``[cols / W][rows][W]`` with the pattern over the whole
buffer (`swizzled_layout`), so each block is what one TMA box of ``W x rows`` writes and what
wgmma's canonical swizzled layouts read (rows of ``row bytes``, 8-row groups ``8 * row bytes``
apart). `choose_swizzle` takes the widest mode whose row divides the tile's contiguous bytes.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Sequence

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.dialects.tirx.layout import Iter, LayoutError, TileLayout
from tirx_mlir.dialects.tirx.layout import Swizzle as LayoutSwizzle

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

CHUNK_BYTES = 16
"""The unit the patterns permute."""
LINE_SHIFT = 3
"""``S``: the chunk bits ``[3, 3+B)`` (the 128-byte line) select the XOR."""


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
        return CHUNK_BYTES << self.bits

    @property
    def pattern_bytes(self) -> int:
        """Bytes after which the pattern repeats (its start must be aligned to this)."""
        return 8 * self.row_bytes

    @property
    def span(self) -> int:
        """The tensor-map name of the mode: its row bytes, 0 for NONE."""
        return 0 if self is Swizzle.NONE else self.row_bytes

    @property
    def tensor_map_name(self) -> str:
        """``cuTensorMapEncodeTiled``'s swizzle argument (``"none"``, ``"32B"``...)."""
        return "none" if self is Swizzle.NONE else f"{self.row_bytes}B"


ALIGNMENT = Swizzle.B128.pattern_bytes
"""Byte alignment of a swizzled shared buffer (the widest pattern), so that the pattern on its
element offsets is the pattern on addresses."""


def tile_alignment(layout: TileLayout | None, elem_bytes: int, default: int) -> int:
    """The byte alignment a shared buffer of ``layout`` needs: its swizzle's repeating pattern
    (``elem_bytes << (M + B + S)``, 1024 bytes for 128B), so the pattern on its element offsets
    is the pattern on addresses; ``default`` when it is not swizzled."""
    if layout is None or layout.swizzle is None:
        return default
    sw = layout.swizzle
    return max(default, elem_bytes << (sw.per_element + sw.swizzle_len + sw.atom_len))


def swizzle(addresses: np.ndarray, mode: Swizzle, base_offset: int = 0) -> np.ndarray:
    """Byte addresses after ``mode``'s XOR pattern (module docstring)."""
    addr = np.asarray(addresses, dtype=np.int64)
    if mode.bits == 0:
        return addr
    mask = (1 << mode.bits) - 1
    line = ((addr >> 7) - base_offset) & mask
    return addr ^ (line << 4)


# --- tile layouts --------------------------------------------------------------------------------


def _per_element(elem_bytes: int) -> int:
    if elem_bytes not in (1, 2, 4, 8, 16):
        raise LayoutError(f"a swizzled shared tile needs 1, 2, 4, 8 or 16-byte elements, not "
                          f"{elem_bytes}")
    return (CHUNK_BYTES // elem_bytes).bit_length() - 1


def layout_swizzle(mode: Swizzle, elem_bytes: int) -> LayoutSwizzle | None:
    """The ``swizzle(M, B, S)`` of a tile layout of ``elem_bytes`` elements that applies
    ``mode`` (None for NONE)."""
    if mode is Swizzle.NONE:
        return None
    return LayoutSwizzle(_per_element(elem_bytes), mode.bits, LINE_SHIFT)


def mode_of(layout_swz: LayoutSwizzle | None, elem_bytes: int) -> Swizzle | None:
    """The hardware mode a tile layout's swizzle is (NONE without one), or None when it is no
    TMA/wgmma pattern for elements of ``elem_bytes``."""
    if layout_swz is None:
        return Swizzle.NONE
    for mode in (Swizzle.B32, Swizzle.B64, Swizzle.B128):
        if layout_swizzle(mode, elem_bytes) == layout_swz:
            return mode
    return None


def choose_swizzle(elem_bytes: int, cols: int) -> Swizzle:
    """The widest mode whose row divides a tile's contiguous extent ``cols`` (in elements):
    128B for 64 f16 columns or any multiple, 64B for 32, 32B for 16, NONE below."""
    inner = elem_bytes * cols
    for mode in (Swizzle.B128, Swizzle.B64, Swizzle.B32):
        if inner % mode.row_bytes == 0:
            return mode
    return Swizzle.NONE


def block_elements(mode: Swizzle, elem_bytes: int) -> int:
    """``W``: elements of one swizzled row, the width of one column block."""
    return mode.row_bytes // elem_bytes


def swizzled_layout(shape: Sequence[int], elem_bytes: int, mode: Swizzle) -> TileLayout:
    """The layout of a shared tile ``[..., rows, cols]`` in column blocks of one swizzled row
    each, with ``mode``'s pattern (module docstring); leading dims index whole tiles (a ring
    of pipeline stages). Raises LayoutError when a tile does not split into whole blocks of
    whole 8-row patterns."""
    shape = tuple(int(d) for d in shape)
    if len(shape) < 2:
        raise LayoutError(f"a swizzled shared tile has at least 2 dims, not {list(shape)}")
    *lead, rows, cols = shape
    if mode is Swizzle.NONE:
        return TileLayout.row_major(shape)
    w = block_elements(mode, elem_bytes)
    if cols % w or rows % 8:
        raise LayoutError(f"a {mode.tensor_map_name}-swizzled [{rows}, {cols}] tile of "
                          f"{elem_bytes}-byte elements needs rows a multiple of 8 and columns a "
                          f"multiple of {w}")
    outer = TileLayout.row_major(lead).shard if lead else ()
    outer = tuple(Iter(it.extent, it.stride * rows * cols) for it in outer)
    tile = (Iter(rows, w), Iter(cols // w, rows * w), Iter(w, 1))
    if cols == w:
        tile = (Iter(rows, w), Iter(w, 1))
    return TileLayout((*outer, *tile), swizzle=layout_swizzle(mode, elem_bytes))


def swizzled_tile(layout: TileLayout | None, shape: Sequence[int],
                  elem_bytes: int) -> Swizzle | None:
    """The mode of ``layout`` when it is `swizzled_layout` of ``shape`` for some mode (NONE:
    plain row-major, also when ``layout`` is None), else None: the shared tiles that variants
    reading through descriptors and tensor maps accept."""
    if layout is None:
        return Swizzle.NONE if len(shape) >= 2 else None
    mode = mode_of(layout.swizzle, elem_bytes)
    if mode is None or len(shape) < 2:
        return None
    try:
        expected = swizzled_layout(shape, elem_bytes, mode)
    except LayoutError:
        return None
    return mode if expected == layout else None
