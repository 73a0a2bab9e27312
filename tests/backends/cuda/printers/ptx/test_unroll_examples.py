"""printers/ptx/unroll.py on every tile example: the module the PTX printer prints from (its
register loops expanded) computes what the rolled module computes, by the SIMT interpreter.

The pipeline's checks (numpy == tile == SIMT after every pass) end at the rolled module; the
print-time expansion is a rewrite of its own, so it is checked here the same way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.printers.ptx.unroll import expand_register_loops, needs_expansion
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError
from tirx_testing.cuda_every_stage import lower, run
from tirx_testing.trn_lowering import random_inputs

load("cuda")
EXAMPLES = Path(__file__).parents[5] / "examples" / "cuda" / "tile"
ROLLED = ["attention_scores", "cluster_exchange", "flash_attention_sm80", "flash_attention_sm90a",
          "gemm_multicast_2x2_sm90a", "gemm_multicast_sm90a", "gemm_sm80", "gemm_sm90a",
          "matmul_bias_relu", "reduce_2d", "softmax_registers"]
"""Examples whose lowered kernels keep register loops for the PTX printer to expand."""


def _fail(message, op):
    return PrintError(message, op, code="ptx-print")


@pytest.mark.parametrize("name", ROLLED)
def test_the_expanded_module_computes_what_the_rolled_one_does(name):
    text = (EXAMPLES / f"{name}.mlir").read_text()
    rolled = lower(text, name)
    assert any(op.name == "scf.for" and needs_expansion(op) for op in rolled.walk())
    expanded = expand_register_loops(rolled, _fail)
    assert expanded is not rolled
    assert not any(op.name == "scf.for" and needs_expansion(op) for op in expanded.walk())
    expanded.verify()
    inputs = random_inputs(parse_module(text, name), 0)  # the kernel's own arrays (no maps)
    for want, got in zip(run(rolled, inputs), run(expanded, inputs), strict=True):
        np.testing.assert_array_equal(got, want)  # the same operations, in the same order
