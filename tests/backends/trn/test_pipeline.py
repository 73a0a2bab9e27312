"""The ``trn`` pipeline by name: its passes and options, and the command-line tools running it
(``tirx-opt --pass-pipeline=trn ... -t nki``, ``tirx-run --pass-pipeline=trn``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tirx_testing.trn_lowering import example_names, example_path, parse_file
from tirx_mlir.pipelines import get_pipeline, list_pipelines

BIN = os.path.dirname(sys.executable)


def test_trn_pipeline_is_registered_with_its_passes():
    assert "trn" in list_pipelines()
    pipeline = get_pipeline("trn")
    assert [p.name for p in pipeline.passes] == [
        "tirx-check-bounds", "trn-default-layout", "tirx-dispatch", "trn-lower-layout",
        "canonicalize", "cse", "dce", "tirx-check-bounds", "trn-allocate"]


def test_trn_pipeline_options_reach_the_passes():
    pipeline = get_pipeline("trn", target="aws/trn2/trn2.48xlarge", max_inst_size=1024)
    spec = pipeline.spec()
    assert "trn-max-inst-size{max_inst_size=1024}" in spec
    assert 'tirx-dispatch{target="aws/trn2/trn2.48xlarge"}' in spec


def test_the_max_inst_size_pass_module_is_imported_only_when_named():
    probe = ("import sys\n"
             "from tirx_mlir.pipelines import get_pipeline\n"
             "name = 'tirx_mlir.backends.trn.transforms.inst_size'\n"
             "get_pipeline('trn')\n"
             "print(name in sys.modules)\n"
             "get_pipeline('trn', max_inst_size=256)\n"
             "print(name in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)
    assert out.stdout.split() == ["False", "True"]


def test_trn_pipeline_rejects_unknown_options():
    with pytest.raises(Exception, match="max_inst_size"):
        get_pipeline("trn", max_inst=3)


def test_trn2_target_uses_a_scalar_activation_bias():
    """NeuronCore-v3 takes a scalar bias: no constant bias tile is made."""
    module = parse_file(example_path("exp_bias_scale"))
    get_pipeline("trn", target="aws/trn2/trn2.48xlarge").apply(module)
    names = [op.name for op in module.walk()]
    assert "nki.memset" not in names and "nki.activation" in names


def _tool(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([os.path.join(BIN, name), *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("printer, marker", [("nki", "nisa.nc_matmul"),
                                             ("nki-legacy", "nisa.nc_matmul")])
def test_tirx_opt_pass_pipeline_trn_prints_nki(printer, marker):
    out = _tool("tirx-opt", "--pass-pipeline=trn", example_path("matmul_512"), "-t", printer)
    assert out.returncode == 0, out.stderr
    assert marker in out.stdout


def test_tirx_run_runs_the_lowered_kernel():
    out = _tool("tirx-run", example_path("softmax_128x512"), "--pass-pipeline=trn")
    assert out.returncode == 0, out.stderr
    assert "%Y: [128, 512] f32" in out.stdout and "nan 0" in out.stdout


@pytest.mark.parametrize("name", [n for n in example_names()
                                  if n not in ("nki_matmul_1", "matmul_bf16_1024x2048x4096")])
def test_every_example_runs_through_tirx_run_and_the_pipeline(name):
    """(The two largest matmuls run in-process in test_trn_examples.py; a CLI round costs
    them seconds of interpretation twice.)"""
    out = _tool("tirx-run", example_path(name), "--pass-pipeline=trn")
    assert out.returncode == 0, out.stderr
    nans = re.findall(r"\bnan (\d+)", out.stdout)
    assert nans and all(n == "0" for n in nans), out.stdout
