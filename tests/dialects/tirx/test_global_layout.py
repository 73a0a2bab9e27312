"""Where a global buffer's layout puts its logical elements in memory: one stride per dim, an
offset, the span; placing a logical array and reading it back; the rules a layout must follow."""

import numpy as np
import pytest

from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.global_layout import global_placement, placement_of
from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout
from xdsl.dialects.builtin import f32


def placement(layout: str, shape=(4, 6)):
    return placement_of(TileLayout.parse(layout), tuple(shape))


@pytest.mark.parametrize("layout,strides,offset,span", [
    ("S[4,6]", (6, 1), 0, 24),
    ("S[(4,6):(1,4)]", (1, 4), 0, 24),                 # column-major
    ("S[(4,6):(8,1)]", (8, 1), 0, 30),                 # rows 8 apart: the last row ends at 30
    ("S[(4,6):(8,1)] + 3", (8, 1), 3, 33),             # and 3 elements of head padding
    ("S[(4,2,3):(1,12,4)]", (1, 4), 0, 24),            # dim 1 as two iterators that compose
    ("S[(1,4,6):(0,6,1)]", (6, 1), 0, 24),             # unit iterators are ignored
])
def test_strides_offset_and_span(layout, strides, offset, span):
    p = placement(layout)
    assert (p.strides, p.offset, p.span) == (strides, offset, span)
    assert p.address((3, 5)) == offset + 3 * strides[0] + 5 * strides[1]


def test_row_major_is_the_plain_array_and_a_missing_layout_too():
    assert placement("S[4,6]").is_row_major()
    assert global_placement(BufferType([4, 6], f32, "global")).is_row_major()
    assert not placement("S[(4,6):(1,4)]").is_row_major()
    assert not placement("S[4,6] + 1").is_row_major()


def test_place_and_read_back():
    p = placement("S[(4,6):(8,1)] + 3")
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    memory = p.place(x, np.full(33, np.nan, np.float32))
    assert memory[3 + 8 * 2 + 5] == x[2, 5]
    assert np.isnan(memory[:3]).all() and np.isnan(memory[9:11]).all()  # padding is fresh
    view = p.logical_view(memory)
    np.testing.assert_array_equal(view, x)
    view[1, 1] = -1.0  # a view: writes go to memory
    assert memory[3 + 8 + 1] == -1.0


def test_column_major_memory_is_the_transposed_array():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    memory = placement("S[(4,6):(1,4)]").place(x, np.zeros(24, np.float32))
    np.testing.assert_array_equal(memory, x.T.reshape(-1))


@pytest.mark.parametrize("layout,rule", [
    ("S[(4,2,3):(1,3,12)]", "do not compose into one stride"),
    ("S[(4,6):(1,1)]", "puts two elements of 4x6 at address 1"),
    ("S[(4,6):(6,1)] + R[2:24]", "has a replica"),
    ("swizzle(1,1,1) S[4,6]", "has a swizzle"),
    ("S[(4,6):(6,1@laneid)]", "uses axis laneid"),
    ("S[(3,8):(8,1)]", "does not split along the dims of 4x6"),
])
def test_rules(layout, rule):
    with pytest.raises(LayoutError, match=rule):
        placement(layout)


def test_strides_that_do_not_nest_but_never_clash_are_fine():
    p = placement("S[(2,3):(3,2)]", (2, 3))  # addresses 0 2 4 / 3 5 7
    assert p.span == 8


def test_large_interleaved_layouts_are_refused_without_listing_addresses():
    with pytest.raises(LayoutError, match="interleaves the dims of 4096x4096"):
        placement("S[(4096,4096):(1,2)]", (4096, 4096))


def test_a_memory_smaller_than_the_span_is_refused():
    with pytest.raises(ValueError, match="smaller than the layout's span of 30"):
        placement("S[(4,6):(8,1)]").logical_view(np.zeros(24, np.float32))
