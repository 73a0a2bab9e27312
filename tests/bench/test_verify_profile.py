"""bench/verify_profile.py: per pass, the counts and times of the verification after it, its
parts adding up, and the verifier left as it was."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import verify_profile  # noqa: E402

from tirx_mlir.backends.trn.dialects.nki.base import NkiOp  # noqa: E402
from tirx_mlir.dialects.tirx import access  # noqa: E402
from tirx_mlir.pipelines import get_pipeline, preserves_ir  # noqa: E402
from tirx_mlir.verification import ModuleVerifier  # noqa: E402


def test_each_verified_pass_has_its_counts_and_parts():
    originals = (ModuleVerifier.__dict__["_check"], ModuleVerifier.__dict__["_visit"],
                 access.resolve_access, NkiOp.__dict__["verify_views"])
    sums = verify_profile.profile_kernel("trn:matmul_512", warm=0, runs=1)
    pipeline = get_pipeline("trn")
    assert set(sums) == {p.name for p in pipeline.passes if not preserves_ir(p)}
    dispatch = sums["tirx-dispatch"]
    assert dispatch["ops"] > dispatch["visit"] > dispatch["check"] > 0
    assert 0 < dispatch["irdl"] and 0 < dispatch["checks"] < dispatch["verify"]
    assert dispatch["plain"] > 0 and dispatch["views"] > 0
    for row in sums.values():
        assert row["memo"] == pytest.approx(row["verify"] - row["checks"] - row["views"])
    assert sum(row["vrule"] for row in sums.values()) >= 1  # matmul_512 has ops alike but views
    assert (ModuleVerifier.__dict__["_check"], ModuleVerifier.__dict__["_visit"],
            access.resolve_access, NkiOp.__dict__["verify_views"]) == originals


def test_an_unknown_kernel_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["verify_profile.py", "--kernels", "trn:nope"])
    with pytest.raises(SystemExit):
        verify_profile.main()
    assert "'trn:nope' is not a kernel" in capsys.readouterr().err
