"""``ldmatrix``/``stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16`` on warp batches:
the PTX ISA sections "Warp-level matrix load instruction: ldmatrix" and "... store instruction:
stmatrix".

Addresses: the instruction moves ``num`` (1, 2, 4) 8x8 matrices of b16 elements; each matrix row
is 16 contiguous bytes of shared memory at a 16-byte-aligned address that one lane supplies —
lanes ``8*i .. 8*i + 7`` give rows 0-7 of matrix i, so lanes 0-7 (x1), 0-15 (x2) or 0-31 (x4)
supply addresses and the addresses of the other lanes are ignored.

Fragments: register i of lane l holds two elements of matrix i; with ``g = l >> 2`` and
``t = l % 4`` they are row g, columns ``2t`` and ``2t + 1`` (the lower column in the low half).
With ``.trans`` the matrix is read column-major: the elements are row ``2t`` and ``2t + 1`` of
column g of the matrix as stored. ``stmatrix`` is the inverse: the same lanes and registers
write the same positions.

Row arrays are ``(W, 8 * num, 8)`` uint16 (row r of matrix i at ``8*i + r``); registers
``(W, 32, num)`` int32.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import as_b32, pack, unpack

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

MATRICES = {"x1": 1, "x2": 2, "x4": 4}
ROW_BYTES = 16


def address_lanes(num: int) -> np.ndarray:
    """The lanes (in order: matrix 0 rows 0-7, matrix 1 rows 0-7, ...) whose addresses count."""
    return np.arange(8 * num)


def fragment_positions(trans: bool) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) in the stored 8x8 matrix of the two elements of each lane: ``(32, 2)``."""
    lane = np.arange(32)[:, None]
    g, t, j = lane >> 2, lane % 4, np.arange(2)[None, :]
    if trans:
        return 2 * t + j, np.broadcast_to(g, (32, 2))
    return np.broadcast_to(g, (32, 2)), 2 * t + j


def rows_to_registers(rows: np.ndarray, trans: bool) -> np.ndarray:
    """Matrix rows ``(W, 8*num, 8)`` uint16 -> ldmatrix destination registers ``(W, 32, num)``."""
    w, nrows, _ = rows.shape
    num = nrows // 8
    r, c = fragment_positions(trans)
    mats = rows.reshape(w, num, 8, 8)
    elems = mats[:, :, r, c]                                     # (W, num, 32, 2)
    return pack(np.moveaxis(elems, 1, 2).reshape(w, 32, 2 * num), "b16")


def registers_to_rows(regs: np.ndarray, trans: bool) -> np.ndarray:
    """stmatrix source registers ``(W, 32, num)`` -> the matrix rows ``(W, 8*num, 8)`` they
    store."""
    w, _, num = regs.shape
    r, c = fragment_positions(trans)
    elems = unpack(as_b32(regs), "b16").reshape(w, 32, num, 2)
    mats = np.empty((w, num, 8, 8), dtype=np.uint16)
    mats[:, :, r, c] = np.moveaxis(elems, 2, 1)
    return mats.reshape(w, 8 * num, 8)


def _row_offsets(smem: np.ndarray, addrs: np.ndarray) -> np.ndarray:
    addrs = np.asarray(addrs, dtype=np.int64)
    bad = (addrs % ROW_BYTES != 0) | (addrs < 0) | (addrs + ROW_BYTES > smem.shape[-1])
    if bad.any():
        where = tuple(int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"row address {int(addrs[where])} (warp {where[0]}, row {where[1]}) "
                         f"is not a 16-byte-aligned row inside {smem.shape[-1]} bytes of "
                         "shared memory")
    return addrs[..., None] + np.arange(ROW_BYTES)


def _arena(smem: np.ndarray, cta: np.ndarray | None, warps: int) -> tuple[np.ndarray, np.ndarray]:
    arenas = smem if smem.ndim == 2 else smem[None]
    ctas = np.zeros(warps, dtype=np.int64) if cta is None else np.asarray(cta, dtype=np.int64)
    return arenas, ctas[:, None, None]


def ldmatrix(smem: np.ndarray, addrs: np.ndarray, num: int, trans: bool,
             cta: np.ndarray | None = None) -> np.ndarray:
    """Destination registers ``(W, 32, num)`` of an ldmatrix by warps whose lanes hold the byte
    offsets ``addrs`` ``(W, 32)`` into ``smem`` (uint8: one CTA's arena ``(bytes,)``, or
    ``(ctas, bytes)`` with ``cta[w]`` the CTA of warp w)."""
    arenas, ctas = _arena(smem, cta, addrs.shape[0])
    offs = _row_offsets(arenas, addrs[:, address_lanes(num)])
    rows = arenas[ctas, offs].view("<u2").astype(np.uint16)
    return rows_to_registers(rows, trans)


def stmatrix(smem: np.ndarray, addrs: np.ndarray, regs: np.ndarray, trans: bool,
             cta: np.ndarray | None = None) -> None:
    """Write stmatrix source registers ``regs`` ``(W, 32, num)`` to ``smem`` in place (the
    arguments as for ``ldmatrix``)."""
    num = regs.shape[2]
    arenas, ctas = _arena(smem, cta, addrs.shape[0])
    offs = _row_offsets(arenas, addrs[:, address_lanes(num)])
    rows = registers_to_rows(regs, trans)
    arenas[ctas, offs] = rows.astype("<u2").view(np.uint8).reshape(offs.shape)
