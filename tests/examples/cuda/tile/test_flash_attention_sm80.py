"""examples/cuda/tile/flash_attention_sm80.mlir: FlashAttention-2's forward loop on sm_80 tensor
cores (mma.sync for Q K^T and P V, row statistics in the lanes that hold a row). A 2-CTA,
2-KV-block version is checked at every stage of the cuda pipeline (numpy == tile interpreter ==
SIMT after each pass) and compiled; the example's own size runs once through the SIMT
interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from tirx_testing.cuda_every_stage import check_every_stage, lower

from tirx_mlir.backends.cuda.interpreter import simulate

TILE = Path(__file__).parents[4] / "examples" / "cuda" / "tile"
EXAMPLE = TILE / "flash_attention_sm80.mlir"


def attention(q, k, v):
    s = (q.astype(np.float32) @ k.astype(np.float32).T) / 8
    p = np.exp(s - s.max(-1, keepdims=True))
    return [(p / p.sum(-1, keepdims=True)) @ v.astype(np.float32)]


def _inputs(length: int):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((length, 64)).astype(np.float16) for _ in range(3)]


def _generated(length: int) -> str:
    return subprocess.run([sys.executable, str(TILE / "gen_flash_attention.py"), str(length)],
                          capture_output=True, text=True, check=True).stdout


def test_the_example_is_its_generators_output():
    assert EXAMPLE.read_text() == _generated(256)


def test_two_blocks_at_every_stage_and_compiled():
    # P is rounded to f16 before P V (as on the hardware): 2e-3 of the f32 reference
    final = check_every_stage(_generated(128), attention, rtol=0, atol=2e-3,
                              name="flash_attention_sm80", inputs=_inputs(128))
    text = str(final)
    # per KV block and warp: Q K^T is 4 k-steps x 8 n-tiles, P V the same
    assert text.count('ptx.mma_sync "m16n8k16.f32.f16.f16.f32"') == 64
    assert "tirx.gemm" not in text and "shfl" in text


def test_the_example_size():
    q, k, v = _inputs(256)
    run = simulate(lower(EXAMPLE.read_text(), "flash_attention_sm80"), None, q, k, v)
    np.testing.assert_allclose(run.outputs[0], attention(q, k, v)[0], rtol=0, atol=2e-3)
