"""tirx-opt --pass-pipeline: registered names, pass lists, MLIR's builtin.module(...) form, option
values with '/' unquoted (issue #15 item 2)."""

from __future__ import annotations

import pytest

from tirx_mlir.pipelines import pipeline_items, quote_option_values
from tirx_mlir.tools.tirx_opt import main

TRN = "examples/trn/add.mlir"


@pytest.mark.parametrize("text,quoted", [
    ("trn{target=aws/trn2/trn2.48xlarge}", 'trn{target="aws/trn2/trn2.48xlarge"}'),
    ("trn{max_inst_size=256 target=aws/trn1/trn1.2xlarge}",
     'trn{max_inst_size=256 target="aws/trn1/trn1.2xlarge"}'),
    ('cuda{target="cuda -arch=sm_90a"}', 'cuda{target="cuda -arch=sm_90a"}'),
    ("cuda{arch=sm_90a}", "cuda{arch=sm_90a}"),
])
def test_values_the_lexer_would_split_are_quoted(text, quoted):
    assert quote_option_values(text) == quoted


def test_the_textual_form_drops_the_module_anchor():
    assert pipeline_items("builtin.module(canonicalize, cse,trn{max_inst_size=256})") == \
        ["canonicalize", "cse", "trn{max_inst_size=256}"]


def test_a_name_with_a_slash_valued_option(capsys):
    assert main([TRN, "--pass-pipeline=trn{target=aws/trn2/trn2.48xlarge}"]) == 0
    out = capsys.readouterr().out
    assert 'target "aws/trn2/trn2.48xlarge"' in out and "nki.load" in out


def test_mlir_textual_pipelines_mix_passes_and_named_pipelines(capsys):
    assert main([TRN, "--pass-pipeline=builtin.module(trn,cse)"]) == 0
    assert "nki.load" in capsys.readouterr().out
    assert main(["examples/add.mlir", "--pass-pipeline=builtin.module(canonicalize,cse)"]) == 0


def test_an_unknown_name_lists_what_exists(capsys):
    assert main([TRN, "--pass-pipeline=trnn"]) == 1
    err = capsys.readouterr().err
    assert "unknown pipeline 'trnn'" in err and "did you mean 'trn'" in err


@pytest.mark.parametrize("flag,text", [
    ("--pass-pipeline", "trn{max_inst_size=256 max_inst_size=512}"),
    ("-p", 'cse,tirx-dispatch{target="aws/trn1/trn1.2xlarge" target="aws/trn2/trn2.48xlarge"}'),
    ("--pass-pipeline", "builtin.module(cse,trn{target=aws/trn1/trn1.2xlarge "
                        "target=aws/trn2/trn2.48xlarge})"),
])
def test_an_option_given_twice_is_refused_not_the_last_one_kept(capsys, flag, text):
    """xDSL's spec parser keeps the last value of a repeated option silently."""
    assert main([TRN, f"{flag}={text}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tirx-opt: error: malformed ") and "is given twice; give it once" in err


def test_the_same_option_in_two_passes_is_not_a_repeat(capsys):
    assert main([TRN, "-p", 'trn-default-layout{target="aws/trn1/trn1.2xlarge"},'
                            'trn-default-layout{target="aws/trn1/trn1.2xlarge"}']) == 0
