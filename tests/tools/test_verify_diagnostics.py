"""tirx-opt --verify-diagnostics: mlir-opt's semantics (expected-error comments, exit 1 on an
unmatched expectation or an unexpected diagnostic), per chunk (issue #15 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tirx_mlir.tools.tirx_opt import main
from tirx_mlir.tools.verify_diagnostics import Expectation, expectations

BAD = "%0 = tirx.lane_id : index\n"


def _run(tmp_path: Path, text: str, capsys, *flags: str) -> tuple[int, str]:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    code = main([str(path), "--verify-diagnostics", *flags])
    return code, capsys.readouterr().err


def test_a_matching_expectation_passes(tmp_path, capsys):
    code, err = _run(tmp_path, "// expected-error@+1 {{must be inside a tirx.kernel}}\n" + BAD,
                     capsys)
    assert code == 0 and err == ""


def test_an_error_nothing_expected_fails(tmp_path, capsys):
    code, err = _run(tmp_path, BAD, capsys)
    assert code == 1 and "k.mlir:1:1: error: unexpected error: 'tirx.lane_id' op" in err


def test_a_wrong_text_or_line_fails_both_ways(tmp_path, capsys):
    code, err = _run(tmp_path, "// expected-error@+2 {{must be inside}}\n" + BAD, capsys)
    assert code == 1 and "unexpected error" in err
    assert 'k.mlir:3: error: expected error "must be inside" was not produced' in err


def test_an_expectation_without_a_diagnostic_fails(tmp_path, capsys):
    text = "// expected-error@+1 {{boom}}\ntirx.kernel @k() grid [1] threads [1] {\n" \
           "  tirx.return\n}\n"
    code, err = _run(tmp_path, text, capsys)
    assert code == 1 and 'expected error "boom" was not produced' in err


def test_chunks_are_checked_separately(tmp_path, capsys):
    text = "// expected-error@+1 {{must be inside}}\n" + BAD + "// -----\n" + BAD
    code, err = _run(tmp_path, text, capsys, "--split-input-file")
    assert code == 1 and err.count("unexpected error") == 1 and "k.mlir:4:1" in err


@pytest.mark.parametrize("comment,line", [("@+1", 11), ("@-2", 8), ("@above", 9),
                                          ("@below", 11), ("", 10)])
def test_line_offsets(comment, line):
    (e,) = expectations(f"// expected-error{comment} {{{{x}}}}", 10)
    assert e.line == line


def test_regex_parts():
    e = Expectation("error", 1, "operand {{[0-9]+}} of", regex=True)
    assert e.matches("error", 1, "operand 12 of tirx.copy") and \
        not e.matches("error", 1, "operand x of")
