"""warp_blocks: every warp must hold the same registers for a translate of warp 0's block."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.dispatch.warp_blocks import warp_blocks
from tirx_mlir.backends.cuda.layout import fragments as F
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dispatch import DispatchFail


def _read(layout, shape):
    h = F.Holders.of(layout, shape)
    return h, (lambda w: F.fragment_tiles(h, F.mma_c(), w))


def test_a_warp_grid_is_read_with_each_warps_origin():
    h, read = _read(F.accumulator_layout(64, 32, 2, 2), (64, 32))
    blocks = warp_blocks(h, 4, read, "D")
    assert blocks.deltas == [(0, 0), (0, 16), (32, 0), (32, 16)]
    assert [o for o, _ in blocks.items] == [(0, 0), (0, 8), (16, 0), (16, 8)]


def test_layouts_that_are_not_fragment_grids_decline():
    h, read = _read(F.accumulator_layout(32, 16, 1, 1), (32, 16))
    with pytest.raises(DispatchFail, match="spreads over 1 warps but the op runs on"):
        warp_blocks(h, 0, read, "D")
    row_major = TileLayout.parse("S[(16,8):(8@laneid,1)]")
    h2, read2 = _read(row_major, (16, 8))
    with pytest.raises(DispatchFail, match="not a grid"):
        warp_blocks(h2, 1, read2, "D")
    # warps interleaved by rows of 8: warp 1's rows are not whole 16-row fragments
    interleaved = TileLayout.parse("S[(2,2,8,4,2):(2,1@warpid,4@laneid,1@laneid,1)]")
    h3, read3 = _read(interleaved, (32, 8))
    with pytest.raises(DispatchFail):
        warp_blocks(h3, 2, read3, "D")
