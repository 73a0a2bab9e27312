"""`physical_access`: where a view of a laid-out buffer lands in (P, F), the split form dispatch
uses, and the memo of static views kept with the layout (one decomposition per shape and
offset, each answer naming its own buffer; a refusal refused again)."""

from __future__ import annotations

import pytest

import tirx_mlir  # noqa: F401  (loads the trn backend)
from tirx_mlir.backends.trn.layout.layouts import effective_layout
from tirx_mlir.backends.trn.layout.physical_access import NotAffine, Piece, physical_access
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, SliceOp
from tirx_mlir.located_parser import parse_module

T = 'target "aws/trn1/trn1.2xlarge"'
BIG = '!tirx.buffer<256x2048xf32, trn.sbuf, "PF">'
TILE = "!tirx.buffer<128x512xf32, trn.sbuf>"
KERNEL = f"""
tirx.kernel @k(%A: !tirx.buffer<128x128xf32, global>) -> (%B: !tirx.buffer<128x128xf32, global>) grid [1] threads [1] {T} {{
  %a = tirx.alloc : {BIG}
  %b = tirx.alloc : {BIG}
  %va = tirx.slice %a[128, 512] [128, 512] : {BIG} -> {TILE}
  %vb = tirx.slice %b[128, 512] [128, 512] : {BIG} -> {TILE}
  %all = tirx.slice %a[0, 0] [256, 512] : {BIG} -> !tirx.buffer<256x512xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c2 step %c1 {{
    %r = arith.muli %i, %c1 : index
    %v = tirx.slice %a[0, %r] [128, 512] : {BIG} -> {TILE}
  }}
  scf.for %j = %c0 to %c3 step %c1 {{
    %s = arith.muli %j, %c1 : index
    %w = tirx.slice %a[%s, 0] [128, 512] : {BIG} -> {TILE}
  }}
  tirx.return
}}
"""


@pytest.fixture
def views():
    module = parse_module(KERNEL)
    layout = effective_layout(next(op for op in module.walk() if isinstance(op, AllocOp))
                              .result.type)
    return [op.result for op in module.walk() if isinstance(op, SliceOp)], layout


def test_a_view_inside_one_layout_tile(views):
    (va, vb, *_), layout = views
    pa = physical_access(va, layout)
    assert pa.base["P"].const == 0 and pa.base["F"].const == 2048 + 512
    assert pa.dims == ((Piece(128, "P", 1),), (Piece(512, "F", 1),))
    assert pa.buffer is va.owner.source


def test_equal_static_views_of_two_buffers_each_name_their_buffer(views):
    (va, vb, *_), layout = views
    first, second = physical_access(va, layout), physical_access(vb, layout)
    assert first.dims == second.dims and first.base == second.base
    assert first.buffer is va.owner.source and second.buffer is vb.owner.source
    assert first.buffer is not second.buffer
    first.base["P"] = first.base["F"]  # a caller's copy: the memo keeps its own
    assert physical_access(vb, layout).base["P"].const == 0


def test_a_view_across_layout_tiles_splits_or_is_refused_every_time(views):
    (_, _, all_rows, *_), layout = views
    split = physical_access(all_rows, layout, allow_split=True)
    assert split.dims[0] == (Piece(2, "F", 2048), Piece(128, "P", 1))
    for _ in range(2):  # the refusal is remembered, and said again
        with pytest.raises(NotAffine, match="crosses a layout tile boundary"):
            physical_access(all_rows, layout)


def test_a_loop_offset_is_placed_by_its_loop_bounds(views):
    (*_, in_loop, rows_loop), layout = views
    assert physical_access(in_loop, layout).base["F"].terms  # F offset: the loop variable
    with pytest.raises(NotAffine, match="crosses a layout tile boundary"):
        physical_access(rows_loop, layout)  # rows 0..2 + 128: past the partition tile
