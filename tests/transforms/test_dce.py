"""`FastDCEPass` gives the IR xDSL's `DeadCodeElimination` gives, at every ``dce`` of the cuda
pipeline on a tile example, and is the pass registered as ``dce``."""

from __future__ import annotations

from pathlib import Path

from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from tirx_mlir import registry
from tirx_mlir.transforms.dce import FastDCEPass
from tirx_testing.same_as_xdsl import checked_points

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_same_ir_as_xdsl_dce_in_the_cuda_pipeline():
    """`FastDCEPass` (dce.py) at every ``dce`` of the cuda pipeline on softmax: xDSL's IR."""
    seen, _ = checked_points(EXAMPLES / "cuda" / "tile" / "softmax.mlir", "cuda", FastDCEPass,
                             DeadCodeElimination)
    assert seen >= 2 and registry.passes.lookup("dce")() is FastDCEPass
