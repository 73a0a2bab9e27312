"""bench/verify_visits.py: the verification after each pass, its ops counted by kind and its CPU
split into parts that add up to the whole."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import verify_visits  # noqa: E402

from tirx_mlir.pipelines import get_pipeline, preserves_ir  # noqa: E402


def test_each_verification_is_counted_and_split():
    table = verify_visits.profile("cuda:softmax_row", warm=0, runs=1)
    verified = {p.name for p in get_pipeline("cuda").passes if not preserves_ir(p)}
    assert set(table) == verified
    dispatch = table["tirx-dispatch"]
    # a full verification after dispatch: nearly every op is new, none is passed over
    assert dispatch["new"] > 0.9 * dispatch["ops"] and dispatch.get("skip", 0) == 0
    assert dispatch["checks"] > 0 and dispatch["check ms"] > 0
    for stats in table.values():
        parts = stats.get("check ms", 0) + stats.get("dom", 0) + stats.get("path", 0) + \
            stats["book"]
        assert parts == pytest.approx(stats["verify"])
    # after a reporting pass the ops the report does not reach are passed over
    assert table["cse"]["skip"] > 0 and table["cse"]["new"] == 0


def test_a_kernel_that_is_not_an_example_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["verify_visits.py", "--kernels", "cuda:nope"])
    with pytest.raises(SystemExit):
        verify_visits.main()
    assert "'cuda:nope' is not" in capsys.readouterr().err
