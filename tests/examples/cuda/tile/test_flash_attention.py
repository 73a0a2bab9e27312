"""examples/cuda/tile/flash_attention_sm{80,90a}.mlir: FlashAttention-2's forward loop on sm_80
(mma.sync for Q K^T and P V) and sm_90a (wgmma), row statistics in the lanes that hold a row.
A 2-CTA, 2-KV-block version of each is checked at every stage of the cuda pipeline (numpy ==
tile interpreter == SIMT after each pass) and compiled for its arch (no spills, no advisories);
the examples' own size runs once through the SIMT interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tirx_testing.cuda_every_stage import check_every_stage, lower

from tirx_mlir.backends.cuda.interpreter import simulate

TILE = Path(__file__).parents[4] / "examples" / "cuda" / "tile"
ARCHS = {"sm_80": ('ptx.mma_sync "m16n8k16.f32.f16.f16.f32"', 64),
         "sm_90a": ("ptx.wgmma_mma_async", 8)}
"""arch -> (the tensor-core op, how many per KV block and CTA in the 2-block kernel: mma.sync
per warp 4 k-steps x 8 n-tiles for each of Q K^T and P V; wgmma m64n64k16 4 k-steps each)."""


def example(arch: str) -> Path:
    return TILE / f"flash_attention_{arch.replace('_', '')}.mlir"


def attention(q, k, v):
    s = (q.astype(np.float32) @ k.astype(np.float32).T) / 8
    p = np.exp(s - s.max(-1, keepdims=True))
    return [(p / p.sum(-1, keepdims=True)) @ v.astype(np.float32)]


def _inputs(length: int):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((length, 64)).astype(np.float16) for _ in range(3)]


def _generated(arch: str, length: int) -> str:
    return subprocess.run([sys.executable, str(TILE / "gen_flash_attention.py"), arch,
                           str(length)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("arch", ARCHS)
def test_the_example_is_its_generators_output(arch):
    assert example(arch).read_text() == _generated(arch, 256)


@pytest.mark.parametrize("arch", ARCHS)
def test_two_blocks_at_every_stage_and_compiled(arch):
    # P is rounded to f16 before P V (as on the hardware): 2e-3 of the f32 reference
    final = check_every_stage(_generated(arch, 128), attention, arch=arch, rtol=0, atol=2e-3,
                              name="flash_attention", inputs=_inputs(128))
    text = str(final)
    op, count = ARCHS[arch]
    assert text.count(op) == count
    assert "tirx.gemm" not in text and "shfl" in text


@pytest.mark.parametrize("arch", ARCHS)
def test_the_example_size(arch):
    q, k, v = _inputs(256)
    run = simulate(lower(example(arch).read_text(), "flash_attention"), None, q, k, v)
    np.testing.assert_allclose(run.outputs[0], attention(q, k, v)[0], rtol=0, atol=2e-3)
