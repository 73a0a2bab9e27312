"""tirx-run --expect / --expect-dir: outputs compared with references, one line each, exit 1 on a
mismatch, tolerances by --rtol/--atol, integers exact, NaN matching NaN."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.tools.expect import compare
from tirx_mlir.tools.tirx_run import main

SOFTMAX = "examples/softmax.mlir"


def test_a_saved_run_matches_itself(tmp_path, capsys):
    assert main([SOFTMAX, "--save", str(tmp_path)]) == 0
    assert main([SOFTMAX, "--expect-dir", str(tmp_path)]) == 0
    assert "%Y: matches (max abs err 0, max rel err 0)" in capsys.readouterr().out


def test_a_wrong_reference_exits_1_naming_the_first_mismatch(tmp_path, capsys):
    assert main([SOFTMAX, "--save", str(tmp_path)]) == 0
    ref = np.load(tmp_path / "Y.npy")
    ref[3, 7] += 1
    np.save(tmp_path / "bad.npy", ref)
    assert main([SOFTMAX, "--expect", str(tmp_path / "bad.npy")]) == 1
    out = capsys.readouterr().out
    assert "%Y: MISMATCH in 1 of 131072 elements; first at [3, 7]" in out
    # a tolerance wide enough lets it pass
    assert main([SOFTMAX, "--expect", str(tmp_path / "bad.npy"), "--atol", "2"]) == 0


def test_the_number_of_references_is_checked(tmp_path, capsys):
    assert main([SOFTMAX, "--save", str(tmp_path)]) == 0
    path = str(tmp_path / "Y.npy")
    assert main([SOFTMAX, "--expect", path, path]) == 1
    assert "has 1 output(s) (%Y), got 2 --expect files" in capsys.readouterr().err
    assert main([SOFTMAX, "--rtol", "1e-3"]) == 1
    assert "--rtol/--atol set the tolerance of --expect" in capsys.readouterr().err


@pytest.mark.parametrize("out,ref,ok", [
    (np.array([1.0, np.nan]), np.array([1.0, np.nan]), True),
    (np.array([1.0, np.nan]), np.array([1.0, 2.0]), False),
    (np.array([3, 4], np.int32), np.array([3, 5], np.int32), False),
])
def test_compare(out, ref, ok):
    assert compare("x", out, ref, 0.0 if out.dtype.kind == "i" else 1e-5, 0.0).ok is ok


def test_shapes_must_agree():
    verdict = compare("x", np.zeros((2, 3)), np.zeros((3, 2)), 1e-5, 1e-6)
    assert not verdict.ok and "shape [2, 3], expected [3, 2]" in verdict.line
