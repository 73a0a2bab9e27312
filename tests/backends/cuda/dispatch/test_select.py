"""tirx.select on CUDA: the affine predicate evaluated on each element's coordinate."""

from __future__ import annotations

import numpy as np

from tirx_testing.cuda_every_stage import check_every_stage


def _causal(scope: str) -> str:
    t = f"!tirx.buffer<64x64xf32, {scope}>"
    return f"""tirx.kernel @causal(%X: !tirx.buffer<64x64xf32, global>)
    -> (%Y: !tirx.buffer<64x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {{
  %t = tirx.alloc : {t}
  %zero = arith.constant -1.0e30 : f32
  tirx.copy cta %t, %X : {t}, !tirx.buffer<64x64xf32, global>
  tirx.select cta %t, %t, %zero where (d0, d1) : (d0 - d1 >= 0) : {t}, {t}, f32
  tirx.copy cta %Y, %t : !tirx.buffer<64x64xf32, global>, {t}
  tirx.return
}}
"""


def _reference(x):
    keep = np.tril(np.ones((64, 64), dtype=bool))
    return [np.where(keep, x, np.float32(-1.0e30))]


def test_causal_mask_in_shared():
    check_every_stage(_causal("shared"), _reference)


def test_causal_mask_in_registers():
    check_every_stage(_causal("local"), _reference)


def test_predicate_over_the_cta_id():
    """A symbol of the predicate (the CTA id): each CTA keeps the rows below its own diagonal
    offset, ``d0 - d1 + 16 * cta >= 0``; both CTAs write their own half of Y."""
    t = "!tirx.buffer<32x64xf32, shared>"
    text = f"""tirx.kernel @shifted(%X: !tirx.buffer<64x64xf32, global>)
    -> (%Y: !tirx.buffer<64x64xf32, global>) grid [2] threads [128] target "cuda -arch=sm_80" {{
  %t = tirx.alloc : {t}
  %zero = arith.constant -1.0e30 : f32
  %b = tirx.cta_id x : index
  %c32 = arith.constant 32 : index
  %row = arith.muli %b, %c32 : index
  %src = tirx.slice %X[%row, 0] [32, 64] : !tirx.buffer<64x64xf32, global> -> !tirx.buffer<32x64xf32, global>
  %dst = tirx.slice %Y[%row, 0] [32, 64] : !tirx.buffer<64x64xf32, global> -> !tirx.buffer<32x64xf32, global>
  tirx.copy cta %t, %src : {t}, !tirx.buffer<32x64xf32, global>
  tirx.select cta %t, %t, %zero where (d0, d1)[s0] : (d0 - d1 + s0 * 16 >= 0) symbols [%b] : {t}, {t}, f32, index
  tirx.copy cta %dst, %t : !tirx.buffer<32x64xf32, global>, {t}
  tirx.return
}}
"""
    q, k = np.ogrid[0:64, 0:64]
    keep = (q % 32) - k + 16 * (q // 32) >= 0
    check_every_stage(text, lambda x: [np.where(keep, x, np.float32(-1.0e30))])
