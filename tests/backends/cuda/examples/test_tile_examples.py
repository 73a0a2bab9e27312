"""The CUDA tile examples (examples/cuda/tile/): numpy == tile interpreter == SIMT interpreter
after every pass of the cuda pipeline; the printed CUDA compiles with nvcc and the printed PTX
assembles with ptxas (sm_80 and sm_90a), with no spills and no performance advisories."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xdsl.dialects import scf

from tirx_testing.cuda_every_stage import check_compiles, check_every_stage
from tirx_mlir.backends.cuda.interpreter.api import simulate
from tirx_mlir.backends.cuda.loop_hints import is_unroll
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.dialects.tirx.access import constant_value

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"


def _text(name: str) -> str:
    return (TILE / f"{name}.mlir").read_text()


def _softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return [(e / e.sum(-1, keepdims=True)).astype(np.float32)]


def _rmsnorm(x, g):
    xf = x.astype(np.float32)
    ss = (xf * xf).sum(1, keepdims=True)
    r = 1 / np.sqrt(ss * np.float32(1 / 512) + np.float32(1e-6))
    return [(xf * r * g.astype(np.float32)).astype(np.float16)]


def _bias_silu(x, b):
    z = x + b
    return [z / (1 + np.exp(-z))]


def _layernorm(x, g, b):
    x64 = x.astype(np.float64)
    mean = x64.mean(1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(1, keepdims=True)
    return [((x64 - mean) / np.sqrt(var + 1e-5) * g + b).astype(np.float32)]


def _matmul_bias_relu(a, b, bias):
    return [np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)]


def _attention_scores(q, k):
    s = (q.astype(np.float32) @ k.astype(np.float32).T) * np.float32(0.125)
    i, j = np.indices(s.shape)
    return [np.where(i >= j, s, np.float32(-3.0e38))]


CASES = {"softmax": (_softmax, 1e-5), "softmax_registers": (_softmax, 1e-5),
         "softmax_row": (_softmax, 1e-5),
         "rmsnorm": (_rmsnorm, 2e-3), "bias_silu": (_bias_silu, 1e-5),
         "layernorm": (_layernorm, 1e-4), "matmul_bias_relu": (_matmul_bias_relu, 1e-3),
         "attention_scores": (_attention_scores, 1e-3)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_every_stage(name):
    reference, tol = CASES[name]
    final = check_every_stage(_text(name), reference, rtol=tol, atol=tol, name=name)
    check_compiles(final, "sm_90a", name)


def test_softmax_rows_reduce_in_warps_without_bank_conflicts():
    """The shared-memory reduction pattern: lanes read consecutive elements of a row, one
    writer per row; every shared access of the kernel's reductions is conflict-free."""
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.pipelines import get_pipeline

    module = parse_module(_text("softmax"), "softmax")
    get_pipeline("cuda").apply(module)
    x = np.random.default_rng(0).standard_normal((512, 256)).astype(np.float32)
    run = simulate(module, None, x)
    np.testing.assert_allclose(run.outputs[0], _softmax(x)[0], rtol=1e-5, atol=1e-6)
    shuffles = [op for op in module.walk() if op.name == "cuda.shfl_sync"]
    # two reductions, 5 butterfly steps, 8 rows per thread: each reduction's rows one loop
    # (dispatch/rounds.py), so 5 shuffles in the IR per reduction, run 8 times
    assert len(shuffles) == 2 * 5
    for op in shuffles:
        loop = op.parent_op()
        assert isinstance(loop, scf.ForOp) and is_unroll(loop)
        assert (constant_value(loop.lb), constant_value(loop.ub), constant_value(loop.step)) \
            == (0, 8, 1)
    assert any(c.get("wavefronts") for c in run.stats.per_op.values())
    for op, counters in run.stats.per_op.items():
        assert counters.get("wavefronts", 0) == counters.get("ideal_wavefronts", 0), \
            f"{op.name} at {op.location}: bank conflicts {dict(counters)}"


def test_reduce_2d_in_registers():
    final = check_every_stage(_text("reduce_2d"),
                              lambda x: [x.astype(np.float64).sum().reshape(1, 1)
                                         .astype(np.float32)],
                              rtol=1e-4, atol=1e-3, name="reduce_2d")
    check_compiles(final, "sm_90a", "reduce_2d")


def test_register_softmax_needs_no_shared_memory():
    """Rows in warps, lanes along the rows: both reductions are shuffles only."""
    from tirx_testing.cuda_every_stage import lower

    module = lower(_text("softmax_registers"))
    names = [op.name for op in module.walk()]
    assert not {"cuda.sync_threads", "cuda.shared_alloc"} & set(names)
    # each butterfly (5 lane bits) is one loop body over the thread's 8 rows (rolled), and the
    # PTX printer expands the loops: 2 x 5 x 8 shuffles in the text
    shuffles = [op for op in module.walk() if op.name == "cuda.shfl_sync"]
    assert len(shuffles) == 2 * 5 and all(is_unroll(op.parent_op()) for op in shuffles)
    assert emit_ptx(module).count("shfl.sync.bfly") == 2 * 5 * 8


def test_one_row_softmax_meets_across_warps_once_per_reduction():
    """softmax_row (Triton's one-row-per-program shape): each thread's 8 columns come in two
    16-byte loads and leave in two 16-byte stores; each reduction is 5 butterfly steps in the
    warp, then one barrier and the 4 warps' partials from shared memory."""
    from tirx_testing.cuda_every_stage import lower

    ptx = emit_ptx(lower(_text("softmax_row")))
    assert ptx.count("ld.global.v4.f32") == 2 and ptx.count("st.global.v4.f32") == 2
    assert "ld.global.f32" not in ptx and "st.global.f32" not in ptx
    assert ptx.count("shfl.sync.bfly") == 2 * 5
    assert ptx.count("bar.sync") == 2
    assert ptx.count("ex2.approx") == 8
