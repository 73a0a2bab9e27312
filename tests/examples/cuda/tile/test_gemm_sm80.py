"""examples/cuda/tile/gemm_sm80.mlir: the tiled sm_80 GEMM (cp.async 3-stage ring, ldmatrix,
mma.sync). A one-CTA version is checked at every stage of the cuda pipeline (numpy == tile
interpreter == SIMT after each pass), then pipelined by cuda-pipeline-k-loop; the example's own
size is lowered, pipelined and run once. Both compile for sm_80 without spills or advisories and
their ldmatrix reads of the swizzled tiles have no bank conflicts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tirx_testing.cuda_every_stage import check_compiles, check_every_stage
from xdsl.context import Context

from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.backends.cuda.pipeline import cuda_passes
from tirx_mlir.located_parser import parse_module
from tirx_mlir.backends.cuda.transforms.pipeline_k_loop import PipelineKLoopPass

EXAMPLE = Path(__file__).parents[4] / "examples" / "cuda" / "tile" / "gemm_sm80.mlir"


def matmul(a, b):
    return [a.astype(np.float32) @ b.astype(np.float32)]


def one_cta(text: str) -> str:
    """The example on a 128x128 output and K = 128: one CTA, 4 K steps."""
    for old, new in (("256x512xf16", "128x128xf16"), ("512x256xf16", "128x128xf16"),
                     ("256x256xf32", "128x128xf32"), ("grid [2, 2]", "grid [1, 1]"),
                     ("%c512 = arith.constant 512", "%c512 = arith.constant 128")):
        assert old in text
        text = text.replace(old, new)
    return text


def _pipelined(text: str, stages: int = 3):
    """The cuda pipeline with cuda-pipeline-k-loop where it belongs: after layout lowering and
    the cleanup, before shared-memory planning (``cuda-allocate-shared``, when the pipeline has
    it)."""
    passes = cuda_passes()
    names = [p.name for p in passes]
    at = names.index("cuda-allocate-shared") if "cuda-allocate-shared" in names else len(passes)
    passes.insert(at, PipelineKLoopPass(num_stages=stages))
    module = parse_module(text, "gemm_sm80")
    for p in passes:
        p.apply(Context(), module)
    module.verify()
    return module


def _check_run(module, a, b) -> None:
    run = simulate(module, "gemm_sm80", a, b)
    np.testing.assert_allclose(run.outputs[0], matmul(a, b)[0], rtol=1e-4, atol=1e-3)
    ldmatrix = run.stats.of("ptx.ldmatrix")
    assert ldmatrix and sum(r.bank_conflicts for r in ldmatrix) == 0


def _inputs(m: int, n: int, k: int):
    rng = np.random.default_rng(0)
    return (rng.standard_normal((m, k)).astype(np.float16),
            rng.standard_normal((k, n)).astype(np.float16))


def test_one_cta_at_every_stage_then_pipelined():
    check_every_stage(one_cta(EXAMPLE.read_text()), matmul, rtol=1e-4, atol=1e-3,
                      name="gemm_sm80", compile=False)
    final = _pipelined(one_cta(EXAMPLE.read_text()))
    text = str(final)
    assert text.count('ptx.mma_sync "m16n8k16.f32.f16.f16.f32"') == 64
    assert text.count("ptx.cp_async_wait_group 1") == 1
    assert "12288xf16" in text                                     # 3 stages of 128x32
    _check_run(final, *_inputs(128, 128, 128))
    check_compiles(final, "sm_80", "gemm_sm80")


def test_the_example_itself():
    module = _pipelined(EXAMPLE.read_text())
    _check_run(module, *_inputs(256, 256, 512))
    check_compiles(module, "sm_80", "gemm_sm80")
