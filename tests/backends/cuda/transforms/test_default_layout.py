"""``cuda-default-layout`` reports what it changes (the kernel's target when it binds a new one,
each allocation it replaces), so the verification after it visits only that."""

from __future__ import annotations

from tirx_testing.reports import reported_points, silenced_is_caught

EXAMPLE = "examples/cuda/tile/gemm_sm80.mlir"


def test_the_pass_reports_each_replaced_allocation(monkeypatch):
    assert reported_points(EXAMPLE, "cuda", "cuda-default-layout") == 1
    assert silenced_is_caught(monkeypatch, EXAMPLE, "cuda", "cuda-default-layout")
