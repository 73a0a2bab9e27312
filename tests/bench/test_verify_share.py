"""bench/verify_share.py: the timing verifier charges each verification to the pass before it,
only passes that change the IR are verified, and the share is verify / (passes + verify)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import verify_share  # noqa: E402

from tirx_mlir.pipelines import get_pipeline, preserves_ir  # noqa: E402


def test_each_verification_is_charged_to_the_pass_before_it():
    passes, verifies = verify_share.measure("trn:softmax_128x512", warm=0, runs=1)
    pipeline = get_pipeline("trn")
    assert set(passes) == set(pipeline.pass_names())
    assert set(verifies) == {p.name for p in pipeline.passes if not preserves_ir(p)}
    assert all(t > 0 for t in passes.values()) and all(t > 0 for t in verifies.values())


def test_cuda_kernels_are_read_from_the_tile_examples():
    passes, verifies = verify_share.measure("cuda:reduce_2d", warm=0, runs=1)
    assert "tirx-dispatch" in passes and "tirx-dispatch" in verifies


def test_a_kernel_that_is_not_an_example_is_refused(monkeypatch, capsys):
    import pytest

    monkeypatch.setattr(sys, "argv", ["verify_share.py", "--kernels", "trn:nope"])
    with pytest.raises(SystemExit):
        verify_share.main()
    assert "'trn:nope' is not trn:<name> or cuda:<name>" in capsys.readouterr().err


def test_a_chain_of_softmax_blocks_runs_through_the_trn_pipeline():
    passes, verifies = verify_share.measure("trn-chain:2", warm=0, runs=1)
    assert set(passes) == set(get_pipeline("trn").pass_names())
    assert "tirx-dispatch" in verifies
    assert verify_share.known_kernel("trn-chain:256")
    assert not verify_share.known_kernel("trn-chain:x")
    assert not verify_share.known_kernel("trn-chain:0")
