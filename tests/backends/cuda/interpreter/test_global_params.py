"""Kernel parameters with a global layout on the SIMT interpreter (`global_params`): the lowered
code indexes the layout's memory, so the interpreter maps that memory, not the logical array.

Found by the cuda hostile-input campaign: softmax with column-major parameters gave another
answer after the cuda pipeline than as written (the inputs were mapped in logical order and the
outputs read back through a copy)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt

import tirx_mlir

COL_MAJOR = "!tirx.buffer<4x8xf32, global, S[(4,8):(1,4)]>"
PADDED = "!tirx.buffer<4x8xf32, global, S[4,8] + 3>"
FLAT = "!tirx.buffer<32xf32, global>"


def _copy(src: str, dst: str) -> str:
    return cuda_kernel(f"(%X: {src}) -> (%Y: {dst})",
                       "  %t = cuda.thread_idx x : index\n"
                       f"  %v = cuda.load %X, %t : {src}, index -> f32\n"
                       f"  cuda.store %Y, %t, %v : {dst}, index, f32")


def test_an_input_is_read_where_its_layout_puts_it():
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    (y,), _ = run_simt(_copy(COL_MAJOR, FLAT), x)
    np.testing.assert_array_equal(y, x.T.reshape(-1))  # element t of the column-major memory


def test_an_output_is_written_where_its_layout_puts_it():
    x = np.arange(32, dtype=np.float32)
    (y,), _ = run_simt(_copy(FLAT, COL_MAJOR), x)
    np.testing.assert_array_equal(y, x.reshape(8, 4).T)


def test_head_padding_is_skipped():
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    (y,), _ = run_simt(_copy(PADDED, FLAT), x)
    assert np.isnan(y[:3]).all()  # the padding: never written, fresh memory
    np.testing.assert_array_equal(y[3:], x.reshape(-1)[:29])


@pytest.mark.parametrize("layout", ["S[(512,256):(1,512)]", "S[512,256] + 64"])
def test_softmax_with_laid_out_parameters_agrees_before_and_after_the_pipeline(layout):
    from pathlib import Path

    text = (Path(__file__).parents[4] / "examples/cuda/tile/softmax.mlir").read_text()
    text = text.replace("!tirx.buffer<512x256xf32, global>",
                        f"!tirx.buffer<512x256xf32, global, {layout}>")
    x = np.random.default_rng(0).standard_normal((512, 256)).astype(np.float32)
    expected = tirx_mlir.interpret(text, "softmax", x)
    lowered = tirx_mlir.compile(text, cache=False).lowered
    np.testing.assert_allclose(tirx_mlir.interpret(lowered, "softmax", x), expected, rtol=1e-5,
                               atol=1e-7)
