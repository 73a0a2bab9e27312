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
