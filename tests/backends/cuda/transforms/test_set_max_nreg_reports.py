"""cuda-set-max-nreg reports what it changes (``REPORTS_CHANGES``, `tirx_mlir.changes`): the
audit (`tirx_mlir.verification`) finds its reports whole where it rewrites a kernel
(flash_attention_ring_sm90a) and where it only removes the split's tag (gemm_sm90a gains
nothing; ``setmaxnreg=false``), finds the change when the reports are dropped, and on a kernel
that was never split (softmax_row) its report is empty: nothing to verify again."""

from __future__ import annotations

import pytest
from xdsl.context import Context

from tirx_testing.reports import reported_points, silenced_is_caught
from tirx_mlir.backends.cuda.transforms.set_max_nreg import CudaSetMaxNRegPass
from tirx_mlir.changes import ChangeLog, reporting_to
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

RING = "examples/cuda/tile/flash_attention_ring_sm90a.mlir"
GEMM = "examples/cuda/tile/gemm_sm90a.mlir"


@pytest.mark.parametrize("path, options", [(RING, {}), (GEMM, {}),
                                           (RING, {"setmaxnreg": "false"})])
def test_the_reports_are_whole(path, options):
    assert reported_points(path, "cuda", "cuda-set-max-nreg", **options) == 1


@pytest.mark.parametrize("path, options", [(RING, {}), (GEMM, {}),
                                           (RING, {"setmaxnreg": "false"})])
def test_dropped_reports_are_caught(monkeypatch, path, options):
    assert silenced_is_caught(monkeypatch, path, "cuda", "cuda-set-max-nreg", **options)


def _before_pass(path: str, **options):
    from tirx_testing.reports import ROOT

    text = (ROOT / path).read_text()
    shots = get_pipeline("cuda", **options).snapshots(parse_module(text, path))
    return shots[-2][1]  # the module before the last pass, cuda-set-max-nreg


def test_an_unsplit_kernel_reports_nothing():
    module = _before_pass("examples/cuda/tile/softmax_row.mlir")
    before = str(module)
    with reporting_to(ChangeLog()) as log:
        CudaSetMaxNRegPass().apply(Context(), module)
    assert str(module) == before
    assert not (log.ops or log.own or log.blocks or log.users)


def test_the_rewritten_kernel_is_reported_whole():
    from tirx_mlir.dialects.tirx.kernel import kernels

    module = _before_pass(RING)
    with reporting_to(ChangeLog()) as log:
        CudaSetMaxNRegPass(target="cuda -arch=sm_90a").apply(Context(), module)
    assert kernels(module)[0] in log.ops
