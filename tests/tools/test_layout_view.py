"""Layout pictures (tools/layout_view.py): the cells say what TileLayout computes, colours follow
the chosen axis, a swizzle removes the bank conflicts a plain row-major tile has."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.tools.layout_view import (BANK, CONFLICT_COLOR, LayoutView, LayoutViewError,
                                         element_bytes, parse_shape)

THREADS = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid"


def _grid(text: str) -> list[list[str]]:
    """The cells of a text grid (header line and row numbers dropped)."""
    lines = text.split("\n\n", 1)[1].splitlines()
    return [line.split()[1:] for line in lines[1:]]


def test_every_cell_is_what_tilelayout_computes() -> None:
    view = LayoutView.of(THREADS, (16, 8))
    layout = TileLayout.parse(THREADS)
    grid = _grid(view.text(max_rows=0, max_cols=0))
    assert len(grid) == 16 and all(len(row) == 8 for row in grid)
    for r in range(16):
        for c in range(8):
            want = layout.apply((r, c), (16, 8))
            assert grid[r][c] == ",".join(str(want[ax]) for ax in view.axes), (r, c)
    assert "first of 2 replicas (each adds 2:4@warpid)" in view.text()
    assert view.color == "laneid"  # the first axis other than m


def test_a_large_grid_is_cut_with_its_last_row_and_column() -> None:
    view = LayoutView.of("S[(128,64):(65,1)]", "128x64")  # rows padded: no bank conflict
    lines = view.text(max_rows=4, max_cols=3).splitlines()
    assert lines[-1].split() == ["127", "8255", "8256", "...", "8318"]
    assert lines[-2].strip() == "..."
    assert lines[-5].split() == ["0", "0", "1", "...", "63"]
    assert lines[-3].split() == ["2", "130", "131", "...", "193"]
    assert view.conflicts() == 1


def test_swizzle_removes_the_column_conflicts_of_a_row_major_tile() -> None:
    plain = LayoutView.of("S[8,64]", (8, 64), element_bytes=2)
    swizzled = LayoutView.of("swizzle(3,3,3) S[8,64]", (8, 64), element_bytes=2)
    assert plain.color == swizzled.color == BANK
    assert plain.conflicts() == 8 and plain.conflict_mask().all()
    assert swizzled.conflicts() == 1 and not swizzled.conflict_mask().any()
    banks = swizzled.color_values()[:, 0]
    assert sorted(banks.tolist()) == [0, 4, 8, 12, 16, 20, 24, 28]  # one bank per row
    assert "8-way, marked !" in plain.text() and "conflicts (a column read" in swizzled.text()
    assert "0!" in plain.text() and "!" not in swizzled.text().split("\n\n")[1]


def test_two_f16_in_one_word_do_not_conflict() -> None:
    # rows 2 elements apart in a 2-wide f16 tile: both elements of a row share one 4-byte word
    view = LayoutView.of("S[(32,2):(2,1)]", (32, 2), element_bytes=2)
    assert view.conflicts() == 1


def test_svg_is_well_formed_and_marks_conflicts() -> None:
    svg = LayoutView.of("S[8,64]", (8, 64), element_bytes=2).svg(max_cols=4)
    root = ET.fromstring(svg)
    rects = [e for e in root.iter("{http://www.w3.org/2000/svg}rect")][1:]  # [0]: background
    assert len(rects) == 8 * 4  # 3 columns, the gap, and the last column
    assert all(r.get("stroke") == CONFLICT_COLOR for r in rects)
    fills = {r.get("fill") for r in LayoutView_rects("swizzle(3,3,3) S[8,64]")}
    assert len(fills) == 8  # eight banks, eight colours in column 0


def LayoutView_rects(layout: str):  # noqa: N802 - helper named for what it returns
    svg = LayoutView.of(layout, (8, 64), element_bytes=2).svg(max_cols=1)
    return list(ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}rect"))[1:]


@pytest.mark.parametrize("bad, message", [
    (lambda: LayoutView.of("S[4,8]", (4, 9)), "covers 32 elements"),
    (lambda: LayoutView.of("S[4,8]", (4, 8), color="laneid"), "cannot colour by 'laneid'"),
    (lambda: LayoutView.of("S[(4,8):(8@laneid,1@laneid)]", (4, 8), color=BANK),
     "needs a layout on the memory axis m"),
    (lambda: LayoutView.of("S[(4,8):(8@nope,1)]", (4, 8)), "unknown layout axis 'nope'"),
    (lambda: parse_shape("4x-1"), "malformed shape '4x-1'"),
    (lambda: element_bytes("float"), "unknown element type 'float'"),
])
def test_bad_input_is_a_sentence(bad, message: str) -> None:
    with pytest.raises(LayoutViewError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bad()


def test_element_bytes_of_ir_type_names() -> None:
    assert [element_bytes(t) for t in ("f16", "bf16", "f32", "f8E4M3FN", "i8", "i1")] == \
        [2, 2, 4, 1, 1, 1]
    assert np.array_equal(LayoutView.of("S[2,2]", "2x2").coords["m"], [[0, 1], [2, 3]])
