"""`BufferType.with_shape`: the sibling types it builds without xDSL's generic parameter checks
are the types `BufferType(...)` builds (equal, same hash and text, same parameters), and the
type's own rules still reject a bad shape or a layout that does not cover it."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import NoneAttr, bf16, f32, i32
from xdsl.utils.exceptions import VerifyException

import tirx_mlir  # noqa: F401  (registers the backends' memory scopes)
from tirx_mlir.dialects.tirx.attributes import BufferType, LayoutAttr
from tirx_mlir.dialects.tirx.layout import layout_from_text

CASES = [
    ((128, 2048), f32, "trn.sbuf", (128, 4, 512)),
    ((64, 8), bf16, "shared", (512,)),
    ((16,), i32, "global", (2, 2, 4)),
    ((8, 8), f32, "trn.psum", (1, 64)),
]


@pytest.mark.parametrize("shape,elem,scope,new_shape", CASES)
def test_with_shape_builds_what_the_constructor_builds(shape, elem, scope, new_shape):
    made = BufferType(shape, elem, scope).with_shape(new_shape)
    expected = BufferType(new_shape, elem, scope)
    assert made == expected and hash(made) == hash(expected)
    assert str(made) == str(expected)
    assert made.get_shape() == new_shape
    assert made.shape == expected.shape and made.scope == expected.scope
    assert made.element_type == elem and isinstance(made.layout, NoneAttr)
    assert type(made) is BufferType


def test_with_shape_keeps_a_layout_and_shares_equal_results():
    layout = layout_from_text("S[(8, 8):(8, 1)]", (8, 8), "shared")
    base = BufferType((64,), f32, "shared")
    made = base.with_shape((8, 8), layout)
    expected = BufferType((8, 8), f32, "shared", layout)
    assert made == expected and isinstance(made.layout, LayoutAttr)
    assert made.get_layout() == layout
    assert base.with_shape((8, 8), layout) is made


@pytest.mark.parametrize("bad", [(0, 4), (4, -1)])
def test_with_shape_still_rejects_a_shape_the_type_forbids(bad):
    with pytest.raises(VerifyException, match="buffer dimensions must be positive"):
        BufferType((4, 4), f32, "shared").with_shape(bad)


def test_with_shape_still_rejects_a_layout_that_does_not_cover_the_shape():
    layout = layout_from_text("S[(8, 8):(8, 1)]", (8, 8), "shared")
    with pytest.raises(VerifyException):
        BufferType((64,), f32, "shared").with_shape((4, 4), layout)
