"""The wgmma accumulator layout (PTX ISA "Matrix fragment for wgmma.m64nNk16") as a tile layout,
checked against the SIMT interpreter's statement of it (`wgmma_fragments.accumulator_map`)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma_fragments as wf
from tirx_mlir.backends.cuda.layout import fragments_wgmma as fw
from tirx_mlir.dialects.tirx.layout import TileLayout


def _owners(layout: TileLayout, shape: tuple[int, int]) -> dict[tuple[int, int], tuple[int, int]]:
    """(thread in the warpgroup, register) -> (row, col) of every element."""
    coords = layout.apply_array(shape)
    tid = coords["wid_in_wg"] * 32 + coords["laneid"]
    out = {}
    for r in range(shape[0]):
        for c in range(shape[1]):
            out[(int(tid[r, c]), int(coords["m"][r, c]))] = (r, c)
    return out


@pytest.mark.parametrize("n", [8, 16, 64, 128, 256])
def test_m64_layout_is_the_interpreters(n: int) -> None:
    owners = _owners(fw.accumulator_layout(64, n), (64, n))
    rows, cols = wf.accumulator_map(n)
    expected = {(t, i): (int(rows[t, i]), int(cols[t, i]))
                for t in range(128) for i in range(n // 2)}
    assert owners == expected


def test_two_m64_tiles_follow_each_other_in_the_registers() -> None:
    layout = fw.accumulator_layout(128, 64)
    assert layout.span("m") == fw.accumulator_registers(128, 64) == 64
    owners = _owners(layout, (128, 64))
    rows, cols = wf.accumulator_map(64)
    for t in (0, 37, 127):
        for i in range(32):
            assert owners[(t, i)] == (rows[t, i], cols[t, i])
            assert owners[(t, 32 + i)] == (64 + rows[t, i], cols[t, i])
    assert str(layout) == \
        "S[(2,4,2,8,8,4,2):(32,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]"
    assert fw.is_accumulator_layout(layout, (128, 64))
    assert not fw.is_accumulator_layout(TileLayout.row_major((128, 64)), (128, 64))


def test_instruction_n() -> None:
    assert [fw.instruction_n(n) for n in (8, 64, 128, 256, 512, 384, 24, 12)] == \
        [8, 64, 128, 256, 256, 192, 24, None]


def test_bad_shape() -> None:
    with pytest.raises(ValueError, match=r"\[64 \* k, 8 \* j\]"):
        fw.accumulator_layout(32, 64)
    assert fw.accumulator_registers(64, 256) == 128


def test_split_over_warpgroups() -> None:
    layout = fw.accumulator_layout(256, 64, warpgroups=2)
    coords = layout.apply_array((256, 64))
    assert (coords["warpid"] // 4 == (np.arange(256) // 128)[:, None]).all()
    assert (coords["warpid"] % 4 == (np.arange(256) % 64 // 16)[:, None]).all()
    assert layout.span("m") == fw.accumulator_registers(256, 64, 2) == 64
    one = fw.accumulator_layout(128, 64).apply_array((128, 64))["m"]
    assert (coords["m"][128:] == one).all()
    assert fw.is_accumulator_layout(layout, (256, 64), 2)
    assert not fw.is_accumulator_layout(layout, (256, 64))
    assert str(fw.accumulator_layout(128, 64, warpgroups=1)).startswith(
        "S[(1,2,4,2,8,8,4,2):(4@warpid,32,1@warpid,")
    with pytest.raises(ValueError, match="over 3 warpgroups"):
        fw.accumulator_layout(128, 64, warpgroups=3)
