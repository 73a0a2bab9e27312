"""The change reports of ``cuda-narrow-index``, ``cuda-peel-constants`` and
``cuda-hoist-invariants`` are whole: with each stating ``REPORTS_CHANGES`` (as it does,
`index_ranges.REPORTS_CUDA_INDEX_CHANGES`), the pipeline's verification from their reports,
audited by a full one (``TIRX_VERIFY_AUDIT``), finds no op they changed without reporting it,
on the examples where they rewrite the most; and a report left out is found."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.rewriter import Rewriter

from tirx_mlir.backends.cuda.transforms.hoist_invariants import CudaHoistInvariantsPass
from tirx_mlir.backends.cuda.transforms.narrow_index import CudaNarrowIndexPass
from tirx_mlir.backends.cuda.transforms.peel_constants import CudaPeelConstantsPass, _Peeler
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.verification import AUDIT_ENV, UnreportedChange

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"
PASSES = (CudaNarrowIndexPass, CudaPeelConstantsPass, CudaHoistInvariantsPass)


def run_reporting(monkeypatch, example: str) -> None:
    monkeypatch.setenv(AUDIT_ENV, "1")
    for cls in PASSES:
        monkeypatch.setattr(cls, "REPORTS_CHANGES", True)
    path = TILE / f"{example}.mlir"
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    get_pipeline("cuda", arch="sm_80").apply(module, ctx)


@pytest.mark.parametrize("example", ["gemm_sm80", "softmax"])
def test_reports_are_whole(monkeypatch, example):
    run_reporting(monkeypatch, example)


def test_a_missing_report_is_found(monkeypatch):
    monkeypatch.setattr(_Peeler, "replace", _replace_unreported)
    with pytest.raises(UnreportedChange):
        run_reporting(monkeypatch, "gemm_sm80")


def _replace_unreported(self, op, new) -> None:
    """`_Peeler.replace` without its report."""
    self.bits.memo.pop(op.results[0], None)
    op.results[0].replace_all_uses_with(new)
    Rewriter.erase_op(op)


def test_a_narrowed_loop_left_unreported_is_found(monkeypatch):
    """`narrow_index.narrow_loop` reports the loop itself, the twin cast it removes and the
    new cast (not everything in the loop): with those reports dropped, the audit finds the
    change."""
    from tirx_mlir.backends.cuda.transforms import narrow_index
    from tirx_mlir.changes import ChangeLog

    original = narrow_index.narrow_loop

    def silent(loop, n):
        log, n.log = n.log, ChangeLog()  # a log nobody reads
        try:
            original(loop, n)
        finally:
            n.log = log

    monkeypatch.setattr(narrow_index, "narrow_loop", silent)
    with pytest.raises(UnreportedChange):
        run_reporting(monkeypatch, "softmax")
