"""Slice offsets built with ``%`` and ``//`` by constants lower (their ranges are known, as in
TVM's arith analyzer) and compute what numpy computes at every stage and in the printed NKI."""

from __future__ import annotations

import numpy as np
from tirx_testing.trn_every_stage import check_every_stage
from tirx_testing.trn_lowering import kernel_text

# y[:, 256*(i//2) + 128*(i%2) : +128] = exp(x[:, 128*(i%2) : +128]) for i in 0..3
INTERLEAVE = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %x = tirx.alloc : !tirx.buffer<128x256xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x256xf32, trn.sbuf>, !tirx.buffer<128x256xf32, global>
  scf.for %i = %c0 to %c4 step %c1 {
    %m = arith.remsi %i, %c2 : index
    %h = arith.floordivsi %i, %c2 : index
    %src = arith.muli %m, %c128 : index
    %t = arith.muli %h, %c2 : index
    %u = arith.addi %t, %m : index
    %dst = arith.muli %u, %c128 : index
    %a = tirx.slice %x[%c0, %src] [128, 128] : !tirx.buffer<128x256xf32, trn.sbuf> -> !tirx.buffer<128x128xf32, trn.sbuf>
    %b = tirx.slice %y[%c0, %dst] [128, 128] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x128xf32, trn.sbuf>
    tirx.exp %b, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>
  }
  tirx.copy %Y, %y : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>"""

# rows 128*(i//2) of a 256-row buffer (two partition tiles), doubled, for i in 0..3
ROW_TILES = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %two = arith.constant 2.0 : f32
  %x = tirx.alloc : !tirx.buffer<256x64xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<256x64xf32, trn.sbuf>, !tirx.buffer<256x64xf32, global>
  scf.for %i = %c0 to %c4 step %c2 {
    %q = arith.floordivsi %i, %c2 : index
    %row = arith.muli %q, %c128 : index
    %v = tirx.slice %x[%row, %c0] [128, 64] : !tirx.buffer<256x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.mul %v, %v, %two : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
  }
  tirx.copy %Y, %x : !tirx.buffer<256x64xf32, global>, !tirx.buffer<256x64xf32, trn.sbuf>"""


def _interleave(x):
    e = np.exp(x.astype(np.float64))
    return [np.concatenate([e, e], axis=1)]


def test_remainder_and_quotient_offsets():
    text = kernel_text(INTERLEAVE, {"X": "!tirx.buffer<128x256xf32, global>"},
                       {"Y": "!tirx.buffer<128x512xf32, global>"})
    printed = check_every_stage(text, _interleave, rtol=2e-6, atol=1e-6, name="interleave")
    assert "(i % 2)" in printed["current"] and "(i // 2)" in printed["legacy"]


def test_quotient_picks_a_partition_tile():
    text = kernel_text(ROW_TILES, {"X": "!tirx.buffer<256x64xf32, global>"},
                       {"Y": "!tirx.buffer<256x64xf32, global>"})
    check_every_stage(text, lambda x: [x * np.float32(2)], rtol=0, atol=0, name="row_tiles")
