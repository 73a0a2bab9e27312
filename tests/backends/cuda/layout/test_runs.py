"""layout/runs.py: which runs of a tile are contiguous and aligned in memory, for strided,
swizzled and padded layouts, through slices whose offsets are loop variables."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.layout.runs import aligned, aligned_runs, padded_runs, view_runs
from tirx_mlir.dialects.tirx.access import IndexExpr
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dialects.tirx.dtypes import element_type
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.located_parser import parse_module


def buf(shape, layout: str | None = None) -> BufferType:
    return BufferType(shape, element_type("f16"), "shared",
                      TileLayout.parse(layout) if layout else None)


@pytest.mark.parametrize("layout,dim,run,ok", [
    (None, 1, 8, True), (None, 0, 8, False),
    ("S[(64,32):(1,64)]", 0, 8, True),                 # column-major: runs go down the rows
    ("swizzle(3,2,3) S[64,32]", 1, 8, True),           # the XOR moves whole 16-byte chunks
    ("swizzle(3,2,3) S[64,32]", 1, 16, False),         # but not whole 32-byte runs
    ("swizzle(2,2,3) S[64,32]", 1, 8, False),          # 8-byte chunks split 16-byte runs
    ("S[(64,32):(40,1)]", 1, 8, True), ("S[(64,32):(36,1)]", 1, 8, False),
])
def test_aligned_runs(layout, dim, run, ok):
    assert aligned_runs(buf((64, 32), layout), dim, run) is ok


KERNEL = """tirx.kernel @k(%A: !tirx.buffer<64x512xf16, global>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  scf.for %k = %c0 to %c512 step STEP {
    %a = tirx.slice %A[0, %k] [64, 32] : !tirx.buffer<64x512xf16, global> -> !tirx.buffer<64x32xf16, global>
    tirx.zero %a : !tirx.buffer<64x32xf16, global>
  }
  tirx.return
}
"""


def _slice(step: str):
    module = parse_module(KERNEL.replace("STEP", step))
    return next(op for op in module.walk() if isinstance(op, SliceOp)).result


def test_a_slice_at_a_loop_variable_is_aligned_when_the_loop_steps_by_the_run():
    assert view_runs(_slice("%c512"), 1, 8)               # k = 0 only
    assert not view_runs(_slice("%c4"), 1, 8)             # k = 4 starts a run mid-chunk
    k = _slice("%c4").owner.operands[1]
    assert aligned(IndexExpr(0, ((k, 2),)), 8) and not aligned(IndexExpr(0, ((k, 1),)), 8)
    assert aligned(IndexExpr(16), 8) and not aligned(IndexExpr(4), 8)


PADDED = """tirx.kernel @k() grid [1] threads [32] {
  %r = tirx.alloc : !tirx.buffer<2x16x30xf16, shared, S[(2,16,30):(512,32,1)]>
  %s = tirx.slice %r[0, 0, 0] [1, 16, 30] : !tirx.buffer<2x16x30xf16, shared, S[(2,16,30):(512,32,1)]> -> !tirx.buffer<1x16x30xf16, shared>
  %t = tirx.reshape %s : !tirx.buffer<1x16x30xf16, shared> -> !tirx.buffer<16x30xf16, shared>
  tirx.zero %t : !tirx.buffer<16x30xf16, shared>
  %u = tirx.slice %r[0, 0, 0] [2, 16, 28] : !tirx.buffer<2x16x30xf16, shared, S[(2,16,30):(512,32,1)]> -> !tirx.buffer<2x16x28xf16, shared>
  tirx.zero %u : !tirx.buffer<2x16x28xf16, shared>
  tirx.return
}
"""


def test_padded_runs_write_only_into_padding():
    module = parse_module(PADDED)
    views = [op.operands[0] for op in module.walk() if op.name == "tirx.zero"]
    tile, narrow = views
    assert padded_runs(tile, 1, 8, write=True)            # cols 30, 31 of each row: padding
    assert padded_runs(tile, 1, 8, write=False)
    assert not padded_runs(narrow, 2, 8, write=True)      # cols 28, 29 hold elements
    assert padded_runs(narrow, 2, 8, write=False)         # reading 12 bytes of 16 is fine


def test_aligned_runs_are_answered_once_per_type(monkeypatch):
    import tirx_mlir.backends.cuda.layout.runs as R

    t = buf([64, 32], "swizzle(3,2,3) S[64,32]")
    asked = []
    real = R._aligned_runs
    monkeypatch.setattr(R, "_aligned_runs", lambda *a: asked.append(a) or real(*a))
    assert aligned_runs(t, 1, 8) and not aligned_runs(t, 1, 16)
    assert aligned_runs(t, 1, 8) and not aligned_runs(t, 1, 16)
    assert asked == [(t, 1, 8), (t, 1, 16)]
