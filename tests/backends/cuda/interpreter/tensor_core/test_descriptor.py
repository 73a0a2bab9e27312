"""The wgmma shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format") and the matrix
elements it denotes in each canonical layout ("Shared Memory Matrix Layout"; CUTLASS
``make_gmma_desc``): bit fields, K- and MN-major layouts per swizzle, the descriptor advance
along K that CUTLASS kernels use, and the 32B-swizzle descriptors of examples/cuda/tma_wgmma.mlir.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core.descriptor import (MatrixDescriptor,
                                                                        read_operand)
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle

EXAMPLE = Path(__file__).resolve().parents[5] / "examples" / "cuda" / "tma_wgmma.mlir"


def test_bit_fields() -> None:
    desc = MatrixDescriptor.decode(0x4000_0040_0001_0020 | (5 << 49))
    assert desc == MatrixDescriptor(start=0x200, leading=0x10, stride=0x400, base_offset=5,
                                    swizzle=Swizzle.B128)
    assert MatrixDescriptor.decode(desc.encode()) == desc
    assert MatrixDescriptor(0, 16, 256, 0, Swizzle.B32).encode() < 0   # bit 63: a negative i64


def _store(tile: np.ndarray, byte_of, size: int) -> np.ndarray:
    """Shared bytes holding ``tile[r, c]`` (f16) at ``byte_of(r, c)``."""
    smem = np.full(size, 0xFF, dtype=np.uint8)
    for r in range(tile.shape[0]):
        for c in range(tile.shape[1]):
            b = byte_of(r, c)
            smem[b:b + 2] = np.frombuffer(tile[r, c].astype("<f2").tobytes(), np.uint8)
    return smem


def _sw128(x: int) -> int:
    return x ^ (((x >> 7) & 7) << 4)


def _tile(rows: int, cols: int) -> np.ndarray:
    """Distinct finite f16 values (bit patterns 0, 1, 2, ...)."""
    return np.arange(rows * cols, dtype=np.uint16).view(np.float16).reshape(rows, cols)


def test_k_major_128b_advanced_along_k() -> None:
    # A 64x64 f16 tile in CUTLASS's Layout_K_SW128_Atom (8 rows of 128 bytes per atom, atoms
    # 1024 bytes apart along M): the k-th wgmma of K = 16 starts 32 bytes further
    tile = _tile(64, 64)
    base = 2048
    smem = _store(tile, lambda r, c: base + (r // 8) * 1024 + _sw128((r % 8) * 128 + c * 2),
                  16384)
    for k in range(4):
        desc = MatrixDescriptor(start=base + 32 * k, leading=16, stride=1024,
                                swizzle=Swizzle.B128)
        assert (read_operand(smem, desc, 64, "f16", mn_major=False) ==
                tile[:, 16 * k:16 * k + 16]).all()


def test_k_major_interleaved_core_matrices() -> None:
    # no swizzle: 8x16-byte core matrices; LBO between the two K halves, SBO between 8-row groups
    tile = _tile(16, 16)
    lbo, sbo = 128, 256
    smem = _store(tile, lambda r, c: (r % 8) * 16 + (r // 8) * sbo + (c % 8) * 2 + (c // 8) * lbo,
                  1024)
    desc = MatrixDescriptor(start=0, leading=lbo, stride=sbo)
    assert (read_operand(smem, desc, 16, "f16", mn_major=False) == tile).all()


@pytest.mark.parametrize("mode, width", [(Swizzle.B128, 64), (Swizzle.B64, 32), (Swizzle.B32, 16)])
def test_mn_major_swizzled(mode: Swizzle, width: int) -> None:
    # an N x K = 128 x 16 f16 operand stored N-major (CUTLASS Layout_MN_SW*_Atom: ``width``
    # contiguous N elements per row of the pattern, 8 K rows per atom); LBO steps N atoms,
    # SBO steps 8 K rows
    tile = _tile(128, 16)
    row = 2 * width
    lbo, sbo = 8 * row * 2, 8 * row

    def byte_of(n: int, k: int) -> int:
        x = (n % width) * 2 + (n // width) * lbo + (k % 8) * row + (k // 8) * sbo
        return x ^ ((((x >> 7) & (mode.bits and (1 << mode.bits) - 1))) << 4)

    smem = _store(tile, byte_of, 16384)
    desc = MatrixDescriptor(start=0, leading=lbo, stride=sbo, swizzle=mode)
    assert (read_operand(smem, desc, 128, "f16", mn_major=True) == tile).all()


def test_mn_major_interleaved() -> None:
    tile = _tile(16, 16)
    lbo, sbo = 256, 128                     # LBO: next 8 K; SBO: next 8 M/N elements
    smem = _store(tile, lambda m, k: (m % 8) * 2 + (m // 8) * sbo + (k % 8) * 16 + (k // 8) * lbo,
                  1024)
    desc = MatrixDescriptor(start=0, leading=lbo, stride=sbo)
    assert (read_operand(smem, desc, 16, "f16", mn_major=True) == tile).all()


def _example_descriptor_fields() -> tuple[int, int]:
    text = EXAMPLE.read_text()
    hi = int(re.search(r"%desc_hi = arith.constant (-?\d+) : i64", text).group(1))
    mask = int(re.search(r"%lo_mask = arith.constant (\d+) : i64", text).group(1))
    return hi, mask


@pytest.mark.parametrize("rows, at", [(64, 0), (128, 2048)])
def test_tma_wgmma_example_descriptors(rows: int, at: int) -> None:
    # tma_wgmma.mlir: TMA with CU_TENSOR_MAP_SWIZZLE_32B writes the K-major box (16 f16 = 32
    # bytes per row) row after row, swapping the two 16-byte halves of rows 4-7 of every 8
    # (the 32B pattern: chunk ^= bit 7 of the offset); the kernel's descriptor is
    # ((addr & lo_mask) >> 4) | desc_hi
    hi, mask = _example_descriptor_fields()
    tile = _tile(rows, 16)
    smem = _store(tile, lambda r, c: at + r * 32 + ((c * 2) ^ (16 * ((r >> 2) & 1))), 8192)
    desc = MatrixDescriptor.decode(((at & mask) >> 4) | hi)
    assert (desc.swizzle, desc.leading, desc.stride, desc.start) == (Swizzle.B32, 16, 256, at)
    assert (read_operand(smem, desc, rows, "f16", mn_major=False) == tile).all()


def test_out_of_arena_operand_is_reported() -> None:
    desc = MatrixDescriptor(start=960, leading=16, stride=256, swizzle=Swizzle.B32)
    with pytest.raises(ValueError, match=r"spans shared bytes \[960, 3008\).*1024 bytes"):
        read_operand(np.zeros(1024, np.uint8), desc, 64, "f16", mn_major=False)
