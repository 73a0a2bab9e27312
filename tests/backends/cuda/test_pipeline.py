"""The ``cuda`` pipeline's options (``target``, ``arch``, ``num_stages``, ``setmaxnreg``): a value the pipeline
cannot honour is refused before any pass runs, on the command line a ``tirx-opt: error:`` line
with exit status 1 (cases found by tests/property/cuda_fuzz_campaign.py)."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.pipeline import cuda_passes, stage_count, switch
from tirx_mlir.tools.tirx_opt import main

SOFTMAX = "examples/cuda/tile/softmax.mlir"


@pytest.mark.parametrize("value,stages", [(1, 1), (3, 3), ("2", 2), (" 4 ", 4)])
def test_a_whole_number_of_stages_is_taken(value, stages):
    assert stage_count(value) == stages


@pytest.mark.parametrize("value", [1.5, 2.0, True, False, "abc", "1.5", None, (2, 3)])
def test_a_stage_count_that_is_no_whole_number_is_refused(value):
    """``int()`` took ``true`` as 1 stage and ``1.5`` as 1: wrong options accepted silently."""
    with pytest.raises(ValueError, match="num_stages must be a whole number of at least 1"):
        stage_count(value)


@pytest.mark.parametrize("value", [0, -3, "0"])
def test_fewer_than_one_stage_is_refused(value):
    with pytest.raises(ValueError, match="num_stages must be at least 1"):
        stage_count(value)


@pytest.mark.parametrize("value,on", [(True, True), (False, False), ("false", False),
                                      (" True ", True)])
def test_setmaxnreg_is_a_switch(value, on):
    assert switch(value, "setmaxnreg") is on
    (last,) = cuda_passes(setmaxnreg=value)[-1:]
    assert last.name == "cuda-set-max-nreg" and last.enabled is on


@pytest.mark.parametrize("value", [1, 0, "yes", None, "1"])
def test_setmaxnreg_that_is_no_switch_is_refused(value):
    with pytest.raises(ValueError, match="setmaxnreg must be true or false"):
        cuda_passes(setmaxnreg=value)


def test_a_target_option_of_another_kind_is_refused():
    with pytest.raises(ValueError, match="the cuda pipeline needs a cuda target, got "
                                         "'aws/trn1/trn1.2xlarge'"):
        cuda_passes(target="aws/trn1/trn1.2xlarge")


@pytest.mark.parametrize("option,message", [
    ("cuda{num_stages=1.5}", "num_stages must be a whole number of at least 1, got 1.5"),
    ("cuda{num_stages=true}", "num_stages must be a whole number of at least 1, got True"),
    ("cuda{target=sm_80}", "unknown target kind or tag 'sm_80'"),
    ('cuda{arch="sm_90a\\"x"}', "cannot parse target"),
    ("cuda{arch=sm_80 arch=sm_90a}", "option 'arch' is given twice"),
    ("cuda{setmaxnreg=maybe}", "setmaxnreg must be true or false, got 'maybe'"),
])
def test_the_command_line_refuses_bad_options_before_reading_the_kernel(capsys, option,
                                                                         message):
    """``cuda{target=sm_80}`` bound the string to the kernels and the next verifier met a target
    it could not parse (an internal compiler error)."""
    assert main([SOFTMAX, f"--pass-pipeline={option}", "-t", "ptx"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tirx-opt: error: ") and message in err, err
    assert "internal" not in err and "Traceback" not in err
