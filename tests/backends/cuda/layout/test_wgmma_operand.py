"""Descriptors of swizzled wgmma operand tiles: every instruction piece of a tile stored through
its swizzled layout reads back, through the SIMT interpreter's descriptor semantics
(`descriptor.read_operand`), as the matching slice of the matrix."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core.descriptor import read_operand
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.backends.cuda.layout.wgmma_operand import K_STEP, OperandTile, operand_tile
from tirx_mlir.dialects.tirx.layout import TileLayout

BASE = 2048        # a pattern-aligned tile start inside the CTA's shared bytes


def _smem(tile: np.ndarray, layout) -> np.ndarray:
    """Shared bytes holding the f16 ``tile`` through ``layout`` at BASE."""
    m = layout.apply_array(tile.shape)["m"]
    smem = np.full(BASE + 2 * tile.size + 1024, 0xFF, dtype=np.uint8)
    halves = smem[BASE:BASE + 2 * tile.size].view("<f2")
    halves[m.ravel()] = tile.ravel()
    return smem


@pytest.mark.parametrize("mode", [sw.Swizzle.B32, sw.Swizzle.B64, sw.Swizzle.B128])
@pytest.mark.parametrize("mn_major", [False, True])
@pytest.mark.parametrize("mn, k, piece", [(128, 64, 64), (64, 128, 64), (128, 32, 128),
                                          (256, 64, 256)])
def test_every_piece_reads_its_slice(mode, mn_major, mn, k, piece) -> None:
    rng = np.random.default_rng(mn * k)
    matrix = rng.standard_normal((mn, k)).astype(np.float16)      # [MN, K]
    stored = matrix.T if mn_major else matrix                     # the shared tile's shape
    if stored.shape[1] % sw.block_elements(mode, 2):
        pytest.skip("the contiguous dim is narrower than one swizzled row")
    layout = sw.swizzled_layout(stored.shape, 2, mode)
    op = operand_tile(layout, stored.shape, 2, mn_major)
    assert isinstance(op, OperandTile) and (op.mn, op.k) == (mn, k)
    smem = _smem(np.ascontiguousarray(stored), layout)
    for r0 in range(0, mn, piece):
        assert op.piece_fits(r0, piece)
        for k0 in range(0, k, K_STEP):
            desc = op.descriptor(BASE + op.start_offset(r0, k0))
            got = read_operand(smem, desc, piece, "f16", mn_major=mn_major)
            np.testing.assert_array_equal(got, matrix[r0:r0 + piece, k0:k0 + K_STEP])


def test_fields() -> None:
    k_major = OperandTile(sw.Swizzle.B128, 2, mn=128, k=64, mn_major=False)
    assert (k_major.leading, k_major.stride) == (16, 1024)
    assert k_major.start_offset(64, 32) == 64 * 128 + 64
    mn_major = OperandTile(sw.Swizzle.B128, 2, mn=128, k=64, mn_major=True)
    assert (mn_major.leading, mn_major.stride) == (64 * 128, 1024)
    assert mn_major.start_offset(64, 16) == 64 * 128 + 16 * 128
    assert not mn_major.piece_fits(32, 64) and mn_major.piece_fits(0, 128)
    assert not k_major.piece_fits(4, 64)


def test_reasons() -> None:
    assert "not swizzled" in operand_tile(TileLayout.row_major((64, 64)), (64, 64), 2, False)
    assert "not a swizzled column-blocked tile" in operand_tile(
        TileLayout.row_major((64, 64)).__class__(TileLayout.row_major((64, 64)).shard,
                                                 swizzle=sw.layout_swizzle(sw.Swizzle.B32, 4)),
        (64, 64), 2, False)


def test_a_tile_too_narrow_to_swizzle_says_what_to_change() -> None:
    """An MN-major B [16, 8] of f16: 16 contiguous bytes, no 32-byte swizzled row (found by
    tests/property/cuda_valid_campaign.py, whose wgmma programs with N = 8 and transpose_b
    were refused without saying why)."""
    why = operand_tile(None, (16, 8), 2, True)
    assert "holds 8 elements, no multiple of the 16" in why and "transpose flag" in why
    assert "(K) holds 8" in operand_tile(None, (64, 8), 2, False)
    assert operand_tile(None, (64, 64), 2, False).endswith("this one is not swizzled")
