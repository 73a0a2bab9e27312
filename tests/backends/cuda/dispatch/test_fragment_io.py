"""fragment_io: which orientation ldmatrix reads a shared tile in (plain or .trans), from the
tile's contiguous dim through transposed views, and which blocks it cannot read (32-bit ones
across the rows)."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.dispatch.fragment_io import (COL, ROW, Matrix, SharedTile,
                                                          contiguous_dim, ldmatrix_ok,
                                                          plain_orientation)
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.located_parser import parse_module


def tile(layout: str, t: str = "f16"):
    text = f"""tirx.kernel @k() grid [1] threads [32] {{
  %s = tirx.alloc : !tirx.buffer<32x32x{t}, shared{layout}>
  tirx.return
}}
"""
    module = parse_module(text)
    return next(op for op in module.walk() if isinstance(op, AllocOp)).result


@pytest.mark.parametrize("layout,dim", [("", 1), (", S[(32,32):(1,32)]", 0),
                                        (", swizzle(3,2,3) S[32,32]", 1),
                                        (", S[(32,32):(33,1)]", None)])
def test_contiguous_dim(layout, dim):
    assert contiguous_dim(tile(layout), 8) == dim


def test_transposed_operands_swap_the_orientation():
    row_major = tile("")
    assert plain_orientation(SharedTile.of(row_major)) == ROW
    assert plain_orientation(SharedTile.of(row_major, transposed=True)) == COL
    assert plain_orientation(SharedTile.of(tile(", S[(32,32):(1,32)]"))) == COL


def test_32_bit_blocks_need_the_plain_orientation():
    f32 = SharedTile.of(tile("", "f32"))
    assert f32.per_row == 4
    assert ldmatrix_ok(f32, Matrix((0, 0), ROW)) and not ldmatrix_ok(f32, Matrix((0, 0), COL))
    f16 = SharedTile.of(tile(""))
    assert ldmatrix_ok(f16, Matrix((0, 0), COL))          # .trans
    assert not ldmatrix_ok(SharedTile.of(tile(", S[(32,32):(33,1)]")), Matrix((0, 0), ROW))
