"""TMA boxes of swizzled shared tiles: each box, laid out in C order at its shared offset and
swizzled as the SIMT interpreter's TMA swizzles (interpreter/tma.py), puts every element where
the tile's layout (swizzle.swizzled_layout) says it is."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter import tma
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.backends.cuda.layout.tma_box import TmaPlan, plan_tma


@pytest.mark.parametrize("mode", list(sw.Swizzle))
@pytest.mark.parametrize("rows, cols, e", [(64, 64, 2), (128, 128, 2), (512, 64, 2),
                                           (64, 32, 4), (16, 256, 1)])
def test_boxes_land_where_the_layout_says(mode, rows, cols, e) -> None:
    plan = plan_tma(rows, cols, mode, e, (1024, 4096), row_dim=0)
    assert isinstance(plan, TmaPlan), plan
    assert all(b <= 256 for b in plan.box) and (plan.box[-1] * e) % 16 == 0
    assert plan.total_bytes == rows * cols * e
    placed = np.full(rows * cols, -1, dtype=np.int64)        # element offset -> tile flat index
    rb, w = plan.box
    for box in plan.boxes:
        r, c = np.meshgrid(np.arange(rb), np.arange(w), indexing="ij")
        tile_index = (box.coords[0] + r) * cols + box.coords[1] + c
        linear = (box.smem_offset + r * w + c) * e
        phys = tma.swizzle(linear, mode.span) // e
        placed[phys.ravel()] = tile_index.ravel()
    layout = sw.swizzled_layout((rows, cols), e, mode).apply_array((rows, cols))["m"]
    assert (placed[layout.ravel()] == np.arange(rows * cols)).all()


def test_plan_shapes() -> None:
    plan = plan_tma(128, 128, sw.Swizzle.B128, 2, (4, 256, 512), row_dim=1)
    assert isinstance(plan, TmaPlan)
    assert plan.box == (1, 128, 64) and len(plan.boxes) == 2
    assert [b.coords for b in plan.boxes] == [(0, 0, 0), (0, 0, 64)]
    assert [b.smem_offset for b in plan.boxes] == [0, 128 * 64]
    assert plan.box_bytes == 16384
    rows512 = plan_tma(512, 64, sw.Swizzle.B128, 2, (512, 64), row_dim=0)
    assert rows512.box == (256, 64) and [b.smem_offset for b in rows512.boxes] == [0, 256 * 64]


def test_reasons() -> None:
    assert "multiples of 16" in plan_tma(64, 64, sw.Swizzle.B128, 2, (64, 68), 0)
    assert "at most 256" in plan_tma(8, 512, sw.Swizzle.NONE, 2, (8, 512), 0)
    assert "column blocks of 64" in plan_tma(64, 96, sw.Swizzle.B128, 2, (64, 96), 0)
    assert "rank 1 to 5" in plan_tma(8, 8, sw.Swizzle.NONE, 2, (1,) * 6 + (8,), 0)
    assert "before the contiguous one" in plan_tma(8, 8, sw.Swizzle.NONE, 2, (8, 8), 1)
