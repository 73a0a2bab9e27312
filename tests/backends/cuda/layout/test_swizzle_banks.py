"""Bank conflicts of swizzled shared tiles, counted by the SIMT interpreter
(`api.simulate(...).stats`): the copies the dispatch emits into and out of a 128-byte swizzled
tile (a TMA box written by tma_auto, a cta-scope tirx.copy) are conflict-free, and reading it
by columns (a transposed view, 32 rows of one column per warp) conflicts a tenth as often as
the row-major tile does. (wgmma's own shared reads are not observed by the bank counter.)"""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import lower
from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
from tirx_mlir.backends.cuda.interpreter.api import simulate
from tirx_mlir.dialects.tirx.kernel import KernelOp

SWIZZLED = ", swizzle(3,3,3) S[64,64]"
ROW_MAJOR = ", S[64,64]"
KERNEL = """tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {{
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared{lay}>
  {fill}
  {read}
  tirx.return
}}"""
FILLS = {
    "tma": 'tirx.copy_async cta %s, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared{lay}>, '
           '!tirx.buffer<64x64xf16, global>',
    "copy": 'tirx.copy cta %s, %A : !tirx.buffer<64x64xf16, shared{lay}>, '
            '!tirx.buffer<64x64xf16, global>'}
READS = {
    "rows": 'tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, '
            '!tirx.buffer<64x64xf16, shared{lay}>',
    "cols": '%t = tirx.transpose %s [1, 0] : !tirx.buffer<64x64xf16, shared{lay}> -> '
            '!tirx.buffer<64x64xf16, shared>\n  tirx.copy cta %O, %t : '
            '!tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>'}


def _conflicts(lay: str, fill: str, read: str) -> int:
    text = KERNEL.format(lay=lay, fill=FILLS[fill].format(lay=lay), read=READS[read].format(lay=lay))
    module = lower(text)
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float16)
    run = simulate(module, "k", *bind_arguments(kernel, [a]))
    np.testing.assert_array_equal(run.outputs[0], a.T if read == "cols" else a)
    return sum(c.get("wavefronts", 0) - c.get("ideal_wavefronts", 0)
               for c in run.stats.per_op.values())


@pytest.mark.parametrize("fill", ["tma", "copy"])
def test_row_copies_of_a_swizzled_tile_are_conflict_free(fill):
    assert _conflicts(SWIZZLED, fill, "rows") == 0


@pytest.mark.parametrize("fill", ["tma", "copy"])
def test_column_reads_conflict_far_less_than_row_major(fill):
    swizzled = _conflicts(SWIZZLED, fill, "cols")
    row_major = _conflicts(ROW_MAJOR, "copy", "cols")
    assert row_major >= 100 and swizzled * 8 <= row_major, (swizzled, row_major)


def test_a_tma_destination_gets_the_swizzle_by_default():
    assert _conflicts("", "tma", "cols") == _conflicts(SWIZZLED, "tma", "cols")
