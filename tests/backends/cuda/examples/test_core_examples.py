"""The core examples softmax and rmsnorm (cta-scope ops on shared tiles) dispatch for CUDA: after
tirx-dispatch the SIMT interpreter gives numpy's result. Their 128-row tiles (128 KiB and more of
shared memory per CTA) are past the 48 KiB of static shared memory, which cuda-lower-layout
refuses; examples/cuda/tile/ has the same kernels with tiles that fit."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.context import Context

from tirx_mlir.backends.cuda.pipeline import cuda_passes
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.located_parser import parse_module

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
BF16 = np.dtype(ml_dtypes.bfloat16)


def _softmax(rng):
    x = rng.standard_normal((512, 256)).astype(np.float32)
    e = np.exp(x - x.max(-1, keepdims=True))
    return [x], e / e.sum(-1, keepdims=True), 1e-6


def _rmsnorm(rng):
    x = rng.standard_normal((256, 512)).astype(BF16)
    g = rng.standard_normal((1, 512)).astype(BF16)
    xf = x.astype(np.float32)
    r = 1 / np.sqrt((xf * xf).sum(1, keepdims=True) * np.float32(1 / 512) + np.float32(1e-6))
    return [x, g], (xf * r * g.astype(np.float32)).astype(BF16), 8e-3


@pytest.mark.parametrize("name,case", [("softmax", _softmax), ("rmsnorm", _rmsnorm)])
def test_dispatched_for_cuda(name, case):
    module = parse_module((EXAMPLES / f"{name}.mlir").read_text(), name)
    passes = cuda_passes(arch="sm_90a")
    for p in passes[:[p.name for p in passes].index("tirx-dispatch") + 1]:
        p.apply(Context(), module)
    assert not any(op.name in ("tirx.reduce_negate", "tirx.unary_reduce", "tirx.binary_reduce",
                               "tirx.binary_chain", "tirx.sum") for op in module.walk())
    inputs, expected, tol = case(np.random.default_rng(0))
    got = KernelRunner(module)(*inputs)[0]
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32),
                               rtol=tol, atol=tol)
