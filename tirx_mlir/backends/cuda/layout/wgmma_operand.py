"""Shared-memory matrix descriptors of a swizzled wgmma operand tile: the leading and stride
byte offsets of the tile and the start offset of each instruction's 64 x 16 (A) or N x 16 (B)
piece.

A wgmma operand is an ``R x K`` matrix (A: M x K; B: N x K) read through a 64-bit descriptor
(PTX ISA "Matrix Descriptor Format"; the fields and the address each element is read from are
stated once, in ``interpreter/tensor_core/descriptor.py``). Our shared operand tiles are
`swizzle.swizzled_layout` tiles ``[rows, cols]`` (cols contiguous, in column blocks of ``W`` =
row bytes / element bytes, ``S`` = row bytes):

* **K-major** (``tnsp = 0``; A ``[M, K]``, B ``[N, K]``): element ``(r, k)`` is at byte
  ``(k // W) * R * S + r * S + (k % W) * e``. The descriptor's canonical K-major swizzled
  layout reads ``(r % 8) * S + (r // 8) * SBO + k * e`` from its start, so ``SBO = 8 * S``
  (LBO is unused: 16 by convention, as CUTLASS sets it) and the piece at ``(r0, k0)`` starts
  at ``(k0 // W) * R * S + r0 * S + (k0 % W) * e``.
* **MN-major** (``tnsp = 1``; A ``[K, M]``, B ``[K, N]``): element ``(k, r)`` is at byte
  ``(r // W) * K * S + k * S + (r % W) * e``; the canonical MN-major swizzled layout reads
  ``(r % W) * e + (r // W) * LBO + (k % 8) * S + (k // 8) * SBO``, so ``LBO = K * S`` (one
  column block), ``SBO = 8 * S``, and the piece starts at ``(r0 // W) * K * S + (r0 % W) * e
  + k0 * S``.

The address bits the pattern XORs are those of the absolute address (as on the hardware), so a
tile must start on a pattern boundary (`swizzle.ALIGNMENT`) with base offset 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from tirx_mlir.backends.cuda.interpreter.tensor_core.descriptor import MatrixDescriptor
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.dialects.tirx.layout import TileLayout

K_STEP = 16
"""K of one f16/bf16 wgmma."""


@dataclass(frozen=True)
class OperandTile:
    """A swizzled shared tile read as a wgmma operand with ``mn`` rows and ``k`` columns of
    the matrix, ``mn_major`` when the MN dim is the contiguous one."""

    mode: sw.Swizzle
    elem_bytes: int
    mn: int
    k: int
    mn_major: bool

    @property
    def row_bytes(self) -> int:
        return self.mode.row_bytes

    @property
    def block(self) -> int:
        """``W``: elements of the contiguous dim in one column block."""
        return sw.block_elements(self.mode, self.elem_bytes)

    @property
    def leading(self) -> int:
        """LBO in bytes."""
        return self.k * self.row_bytes if self.mn_major else 16

    @property
    def stride(self) -> int:
        """SBO in bytes: the distance of consecutive 8-row groups."""
        return 8 * self.row_bytes

    def start_offset(self, r0: int, k0: int) -> int:
        """Byte offset from the tile's start of the piece whose first row is ``r0`` and first
        K column ``k0`` (module docstring)."""
        w, s, e = self.block, self.row_bytes, self.elem_bytes
        if self.mn_major:
            return (r0 // w) * self.k * s + (r0 % w) * e + k0 * s
        return (k0 // w) * self.mn * s + r0 * s + (k0 % w) * e

    def descriptor(self, start: int = 0) -> MatrixDescriptor:
        """The descriptor of the piece at byte address ``start``."""
        return MatrixDescriptor(start=start, leading=self.leading, stride=self.stride,
                                base_offset=0, swizzle=self.mode)

    def piece_fits(self, r0: int, rows: int) -> bool:
        """Whether ``rows`` rows from ``r0`` are one piece the descriptor can walk: K-major
        pieces are whole 8-row groups; MN-major ones stay inside a column block or cover
        whole blocks."""
        if not self.mn_major:
            return r0 % 8 == 0 and rows % 8 == 0
        w = self.block
        return (r0 % w == 0 and (rows % w == 0 or rows < w)) or (r0 % w) + rows <= w


def operand_tile(layout: TileLayout | None, shape: tuple[int, ...], elem_bytes: int,
                 mn_major: bool) -> OperandTile | str:
    """The operand view of the ``[rows, cols]`` tiles of a shared buffer of ``shape`` (``[...,
    rows, cols]``: leading dims index whole tiles), or the reason it is none: the buffer must
    be a swizzled (32/64/128-byte) `swizzle.swizzled_layout` of its shape."""
    mode = sw.swizzled_tile(layout, tuple(shape), elem_bytes)
    if mode is None:
        return (f"the shared tile's layout {layout} is not a swizzled column-blocked tile of "
                f"{list(shape)} (backends/cuda/layout/swizzle.py swizzled_layout)")
    if mode is sw.Swizzle.NONE:
        return ("wgmma reads swizzled shared tiles (32/64/128-byte); this one is not swizzled"
                + _narrow(shape, elem_bytes, mn_major))
    rows, cols = shape[-2:]
    if mn_major:
        return OperandTile(mode, elem_bytes, mn=cols, k=rows, mn_major=True)
    return OperandTile(mode, elem_bytes, mn=rows, k=cols, mn_major=False)


def _narrow(shape: tuple[int, ...], elem_bytes: int, mn_major: bool) -> str:
    """Why a tile cuda-default-layout leaves unswizzled is so, and what to change: its
    contiguous dim is narrower than, or no multiple of, the 32-byte swizzle's row."""
    row = sw.Swizzle.B32.row_bytes // elem_bytes
    cols = shape[-1] if shape else 0
    if cols % row == 0:
        return ""
    dim = "M/N" if mn_major else "K"
    return (f": its contiguous dim ({dim}) holds {cols} elements, no multiple of the "
            f"{row} of a 32-byte swizzled row; make it a multiple of {row}"
            + (" or store the operand K-major (flip its transpose flag)" if mn_major else ""))
