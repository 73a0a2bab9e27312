"""tirx.permute_layout on CUDA: warp_xor_swizzle (the XOR width from the bank simulation, both
phases conflict-free) and the staged fallback at CTA scope; numpy == tile interpreter == SIMT
after every pass, compiled."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.backends.cuda.dispatch.permute_layout import bank_free, choose_xor_bits
from tirx_mlir.backends.cuda.interpreter.api import simulate

ROW = "S[(32,32):(32,1)]"
COL = "S[(32,32):(1,32)]"


def _kernel(src_layout: str, dst_layout: str, scope: str = "warp", threads: int = 32,
            shape=(32, 32)) -> str:
    dims = "x".join(map(str, shape))
    g = f"!tirx.buffer<{dims}xf32, global>"
    s = f"!tirx.buffer<{dims}xf32, shared, {src_layout}>"
    d = f"!tirx.buffer<{dims}xf32, shared, {dst_layout}>"
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}) grid [1] threads [{threads}] target "cuda -arch=sm_80" {{
  %s = tirx.alloc : {s}
  %d = tirx.alloc : {d}
  tirx.copy cta %s, %X : {s}, {g}
  tirx.permute_layout {scope} %d, %s : {d}, {s}
  tirx.copy cta %Y, %d : {g}, {d}
  tirx.return
}}
"""


def test_choose_xor_bits_transpose():
    rows = np.arange(1024)                                   # row-major 32x32
    cols = (rows % 32) * 32 + rows // 32                     # its transpose
    assert not bank_free(cols, 4, 32, 0)
    assert choose_xor_bits(rows, cols, 4, 32) == 5
    assert choose_xor_bits(rows, rows, 4, 32) == 0


def test_warp_transpose_is_bank_conflict_free():
    text = _kernel(ROW, COL)
    check_every_stage(text, lambda x: [x])
    module = lower(text)
    assert sum(op.name == "arith.xori" for op in module.walk()) > 0
    x = np.random.default_rng(0).standard_normal((32, 32)).astype(np.float32)
    run = simulate(module, None, x)
    np.testing.assert_array_equal(run.outputs[0], x)
    permute = [c for op, c in run.stats.per_op.items()
               if c.get("wavefronts") and op.name in ("cuda.load", "cuda.store")
               and c["ideal_wavefronts"] == 1 and c["shared_requests"] == 1]
    assert len(permute) >= 64  # 32 loads + 32 stores of the two phases, one wavefront each


@pytest.mark.parametrize("layouts", [(ROW, COL), (COL, ROW)])
def test_cta_fallback(layouts):
    text = _kernel(*layouts, scope="cta", threads=128)
    check_every_stage(text, lambda x: [x])


def test_variants_in_priority_order():
    from tirx_mlir.backends.cuda.dispatch import permute_layout  # noqa: F401 - registers
    from tirx_mlir.dispatch import cases_for

    names = [c.variant for c in cases_for("tirx.permute_layout", "cuda")]
    assert names == ["warp_xor_swizzle", "fallback"]
