"""The ``-t nki`` / ``-t nki-legacy`` targets made from a spec: without options, the same target
as xDSL's ``from_spec`` makes, without evaluating type hints; with options, xDSL's conversion and
errors."""

from __future__ import annotations

import typing

import pytest
from xdsl.utils.arg_spec import ArgSpecConvertible, parse_spec

from tirx_mlir.backends.trn.printers.targets import NkiLegacyTarget, NkiTarget

XDSL_FROM_SPEC = ArgSpecConvertible.from_spec.__func__  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", [NkiTarget, NkiLegacyTarget])
@pytest.mark.parametrize("options", ["", "{check=false}", "{check=true}"])
def test_same_target_as_xdsl(cls, options):
    spec = parse_spec(cls.name + options)
    made = cls.from_spec(spec)
    assert type(made) is cls
    assert made == XDSL_FROM_SPEC(cls, spec)
    assert made.check is (options != "{check=false}")


def test_no_options_reads_no_type_hints(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("get_type_hints called")

    monkeypatch.setattr(typing, "get_type_hints", forbidden)
    monkeypatch.setattr("xdsl.utils.arg_spec.get_type_hints", forbidden)
    assert NkiTarget.from_spec(parse_spec("nki")) == NkiTarget()
    with pytest.raises(AssertionError, match="get_type_hints"):  # options: xDSL's conversion
        NkiTarget.from_spec(parse_spec("nki{check=false}"))


@pytest.mark.parametrize("text, message", [
    ("nki-legacy", "Spec name mismatch"),
    ("nki{bogus=1}", "not found in expected arguments"),
])
def test_errors_are_xdsls(text, message):
    with pytest.raises(ValueError, match=message):
        NkiTarget.from_spec(parse_spec(text))


def test_cli_rejects_bad_option(tmp_path, capsys):
    from tirx_mlir.tools.tirx_opt import main

    source = tmp_path / "empty.mlir"
    source.write_text("builtin.module {}\n")
    assert main([str(source), "-t", "nki{bogus=1}"]) == 1
    assert "invalid options for -t nki" in capsys.readouterr().err
