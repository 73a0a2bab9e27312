"""The three-way check of every Trainium example (examples/trn/*.mlir):

    numpy reference == interpreter on the tile-level IR == interpreter after each pass of the
    trn pipeline (Pipeline.snapshots), and after allocation on one shared SBUF/PSUM

The last run gives every on-chip buffer a view of one SBUF/PSUM byte array at its ``trn.addr``,
so an allocation that reuses memory still in use corrupts the result.

Tolerances follow the dtypes: elementwise f32 arithmetic is exact (the engines compute in fp32
like numpy); ScalarE functions differ by an ulp or two (exact math rounded once vs numpy's f32
exp); reductions and matmuls reorder fp32 sums (error ~ n * eps * |x|); bf16 matmul inputs are
exact in fp32 products, only the K-long fp32 sum differs; an f16 output may differ by one f16 ulp.
The two largest matmul kernels are interpreted at the stages that change their meaning (tile
level, after dispatch, after layout lowering, after allocation): the cleanup passes are checked
on every other example.
"""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.trn_lowering import (assert_close, example_names, example_path, parse_file,
                                  random_inputs, run)
from tirx_mlir.pipelines import get_pipeline

F32 = np.float32


def _softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _rmsnorm(x, g):
    x = x.astype(np.float64)
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * g


def _layernorm(x, gamma, beta):
    x = x.astype(np.float64)
    xc = x - x.mean(axis=1, keepdims=True)
    return xc / np.sqrt((xc * xc).mean(axis=1, keepdims=True) + 1e-5) * gamma + beta


def _mm(at, b):
    return at.astype(np.float64).T @ b.astype(np.float64)


EXACT = (1e-6, 1e-6)
ACTIVATION = (2e-6, 1e-6)
REDUCE = (1e-5, 1e-4)
MATMUL_F32 = (1e-5, 1e-4)

# name -> (reference(inputs) -> outputs, (rtol, atol))
REFERENCES = {
    "add": (lambda a, b, s: [(a + b + F32(2)) * s], EXACT),
    "causal_mask": (lambda s: [np.where(np.arange(128)[:, None] + 384 >= np.arange(512)[None, :],
                                        s, F32(-3.0e38))], EXACT),
    "causal_softmax_loop": (lambda s: [_softmax(np.where(np.tril(np.ones((512, 512), bool)), s,
                                                         F32(-3.0e38)))], REDUCE),
    "exp_bias_scale": (lambda x, b, s: [np.exp(0.5 * x.astype(np.float64) + b),
                                        np.exp(x.astype(np.float64) * s - 1.0)], ACTIVATION),
    "guarded_loop": (lambda x: [_softmax(x)], REDUCE),
    "guarded_layernorm": (lambda x, g, b: [_layernorm(x, g, b)], REDUCE),
    "guarded_matmul": (lambda x, w: [x.astype(np.float64) @ w], MATMUL_F32),
    "layernorm": (lambda x, g, b: [_layernorm(x, g, b)], REDUCE),
    "layernorm_affine_rows": (lambda x, g, b: [_layernorm(x, g, b)], REDUCE),
    "matmul_128": (lambda at, b: [_mm(at, b)], MATMUL_F32),
    "matmul_512": (lambda at, b: [_mm(at, b)], MATMUL_F32),
    "matmul_bf16_1024x2048x4096": (lambda at, b: [_mm(at, b)], (1e-4, 2e-3)),
    "matmul_bias_relu": (lambda at, b, bias: [np.maximum(_mm(at, b) + bias, 0.0)], MATMUL_F32),
    "matmul_hbm_layouts": (lambda at, b: [_mm(at, b)], MATMUL_F32),
    "matmul_wide_n": (lambda at, b: [_mm(at, b)], MATMUL_F32),
    "nki_add_1": (lambda a: [a + F32(1)], EXACT),
    "nki_add_2": (lambda a: [a + F32(1)], EXACT),
    "nki_matmul_1": (lambda lt, r: [_mm(lt, r).astype(np.float16)], (2e-3, 2e-3)),
    "rmsnorm": (lambda x, g: [_rmsnorm(x, g)], REDUCE),
    "row_reduce": (lambda x: [x.astype(np.float64).sum(axis=1, keepdims=True),
                              x.max(axis=1, keepdims=True), -x.min(axis=1, keepdims=True)],
                   REDUCE),
    "softmax_128x512": (lambda x: [_softmax(x)], REDUCE),
    "softmax_256x2048": (lambda x: [_softmax(x)], REDUCE),
    "softmax_1000x1000": (lambda x: [_softmax(x)], REDUCE),
    "transpose_copy": (lambda x: [x.T, x], EXACT),
}

HEAVY = {"matmul_bf16_1024x2048x4096", "nki_matmul_1"}
MEANING_STAGES = {"input", "tirx-dispatch", "trn-lower-layout", "trn-allocate"}


def test_every_example_has_a_reference():
    assert sorted(REFERENCES) == example_names()
    assert len(REFERENCES) >= 12


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_three_way(name):
    reference, (rtol, atol) = REFERENCES[name]
    module = parse_file(example_path(name))
    module.verify()
    inputs = random_inputs(module)
    expected = reference(*inputs)
    tile_level = run(module, inputs)
    for out, ref in zip(tile_level, expected):
        assert_close(out, ref, rtol, atol, f"{name}: tile-level interpreter vs numpy")
    shots = get_pipeline("trn").snapshots(module)
    assert [s for s, _ in shots][-1] == "trn-allocate"
    for stage, snapshot in shots:
        if name in HEAVY and stage not in MEANING_STAGES:
            continue
        outs = run(snapshot, inputs)
        for out, ref, tile in zip(outs, expected, tile_level):
            assert_close(out, ref, rtol, atol, f"{name}: after {stage} vs numpy")
            assert_close(out, tile, rtol, atol, f"{name}: after {stage} vs tile level")
    final = shots[-1][1]
    for out, ref in zip(run(final, inputs, physical=True), expected):
        assert_close(out, ref, rtol, atol, f"{name}: allocated, shared SBUF/PSUM vs numpy")


@pytest.mark.parametrize("name", ["add", "softmax_256x2048", "matmul_512", "transpose_copy"])
def test_lowered_example_is_physical_nki(name):
    """After the pipeline: no tile primitive, no layout, every on-chip tile [P <= 128, F] with an
    address, and the module verifies (the nki verifiers check the hardware limits)."""
    from tirx_mlir.dialects.tirx import AllocOp, BufferType, TileOp

    module = parse_file(example_path(name))
    get_pipeline("trn").apply(module)
    module.verify()
    assert not [op for op in module.walk() if isinstance(op, TileOp)]
    for op in module.walk():
        for value in op.results:
            if isinstance(value.type, BufferType):
                assert value.type.get_layout() is None
        if isinstance(op, AllocOp) and op.result.type.scope_name.startswith("trn."):
            assert op.result.type.rank == 2 and op.result.type.get_shape()[0] <= 128
            assert "trn.addr" in op.attributes
