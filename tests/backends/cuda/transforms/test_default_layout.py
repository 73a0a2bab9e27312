"""``cuda-default-layout`` reports what it changes (the kernel's target when it binds a new one,
each allocation it replaces), so the verification after it visits only that."""

from __future__ import annotations

from tirx_testing.reports import reported_points, silenced_is_caught

EXAMPLE = "examples/cuda/tile/gemm_sm80.mlir"


def test_the_pass_reports_each_replaced_allocation(monkeypatch):
    assert reported_points(EXAMPLE, "cuda", "cuda-default-layout") == 1
    assert silenced_is_caught(monkeypatch, EXAMPLE, "cuda", "cuda-default-layout")


def test_a_bad_target_option_is_a_located_error_not_a_kernel_target(capsys):
    """``cuda-default-layout{target=sm_80}`` bound the unparsable string to the kernel: the pass
    succeeded and the next op verifier (or reader of the printed IR) met a target it could not
    read (found by tests/property/cuda_fuzz_campaign.py)."""
    from tirx_mlir.tools.tirx_opt import main

    assert main([EXAMPLE, "-p", "cuda-default-layout{target=sm_80}"]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"{EXAMPLE}:18:1: error: 'tirx.kernel' op unknown target kind "
                                   f"or tag 'sm_80'"), captured.err
    assert "internal" not in captured.err and captured.out == ""
