"""bench/gpu/resize.py: the tile examples rewritten to larger problems still compute what numpy
computes (the tile-level interpreter at 512^3 and 1,024 rows), and shapes it cannot resize are
refused with the reason."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.interpreter.launch import interpret

ROOT = Path(__file__).resolve().parents[3]
TILE = ROOT / "examples" / "cuda" / "tile"
sys.path.insert(0, str(ROOT / "bench" / "gpu"))
from resize import gemm_at, rows_at  # noqa: E402


def _gemm_inputs(rng, m, n, k, b_nk):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k) if b_nk else (k, n)).astype(np.float16)
    return a, b


@pytest.mark.parametrize("name, b_nk", [("gemm_sm80", False), ("gemm_sm90a", True),
                                        ("gemm_multicast_2x2_sm90a", True)])
def test_a_resized_gemm_matches_numpy(name, b_nk):
    text = gemm_at((TILE / f"{name}.mlir").read_text(), 512)
    assert "grid [4, 4]" in text and "512x512xf32, global" in text
    a, b = _gemm_inputs(np.random.default_rng(0), 512, 512, 512, b_nk)
    got = interpret(text, None, a, b)
    got = got[0] if isinstance(got, (tuple, list)) else got
    bk = b.astype(np.float32).T if b_nk else b.astype(np.float32)
    np.testing.assert_allclose(np.asarray(got), a.astype(np.float32) @ bk, rtol=1e-3, atol=1e-2)


def test_a_resized_epilogue_gemm_keeps_its_bias_and_relu():
    text = gemm_at((TILE / "matmul_bias_relu.mlir").read_text(), 512)
    assert "1x512xf32, global" in text
    rng = np.random.default_rng(1)
    a, b = _gemm_inputs(rng, 512, 512, 512, False)
    bias = rng.standard_normal((1, 512)).astype(np.float32)
    got = interpret(text, None, a, b, bias)
    got = got[0] if isinstance(got, (tuple, list)) else got
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3, atol=1e-2)


def test_a_resized_row_kernel_matches_numpy():
    text = rows_at((TILE / "softmax.mlir").read_text(), 1024)
    assert "grid [32]" in text
    x = np.random.default_rng(2).standard_normal((1024, 256)).astype(np.float32)
    got = interpret(text, None, x)
    got = np.asarray(got[0] if isinstance(got, (tuple, list)) else got)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_what_cannot_be_resized_says_why():
    with pytest.raises(ValueError, match="not 2-D"):
        gemm_at((TILE / "gemm_multicast_sm90a.mlir").read_text(), 512)
    with pytest.raises(ValueError, match="not a multiple"):
        gemm_at((TILE / "gemm_sm80.mlir").read_text(), 300)
    with pytest.raises(ValueError, match="not a multiple"):
        rows_at((TILE / "softmax.mlir").read_text(), 1000)
