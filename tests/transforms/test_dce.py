"""`FastDCEPass` gives the IR xDSL's `DeadCodeElimination` gives, at every ``dce`` of the cuda
pipeline on a tile example, and is the pass registered as ``dce``."""

from __future__ import annotations

from pathlib import Path

from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from tirx_mlir import registry
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.transforms.dce import FastDCEPass

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_same_ir_as_xdsl_dce_in_the_cuda_pipeline():
    """`FastDCEPass` (dce.py) at every ``dce`` of the cuda pipeline on softmax: xDSL's IR."""
    path = EXAMPLES / "cuda" / "tile" / "softmax.mlir"
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    seen = 0
    for p in get_pipeline("cuda").passes:
        if isinstance(p, FastDCEPass):
            theirs = module.clone()
            DeadCodeElimination().apply(ctx, theirs)
            p.apply(ctx, module)
            assert str(module) == str(theirs)
            seen += 1
        else:
            p.apply(ctx, module)
    assert seen >= 2 and registry.passes.lookup("dce")() is FastDCEPass
