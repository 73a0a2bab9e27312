"""`FastCanonicalizePass` gives the IR xDSL's `CanonicalizePass` gives: on every trn example
kernel and some cuda ones, at every point where their pipeline canonicalizes, the two run on copies of the same
module and must print the same text."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, builtin, func
from xdsl.transforms.canonicalize import CanonicalizePass

from tirx_mlir.located_parser import make_context
from tirx_mlir.transforms.canonicalize import FastCanonicalizePass
from tirx_testing.same_as_xdsl import checked_points

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CUDA_KERNELS = ("bias_silu", "layernorm", "reduce_2d", "softmax", "gemm_sm90a")
"""A few of examples/cuda/tile (the attention and gemm_sm80 ones take ~10-20 s each here)."""
CASES = [("trn", p) for p in sorted((EXAMPLES / "trn").glob("*.mlir"))] + \
    [("cuda", EXAMPLES / "cuda" / "tile" / f"{k}.mlir") for k in CUDA_KERNELS]


@pytest.mark.parametrize("pipeline,path", CASES, ids=[f"{b}-{p.stem}" for b, p in CASES])
def test_same_ir_as_xdsl_canonicalize(pipeline, path):
    seen, _ = checked_points(path, pipeline, FastCanonicalizePass, CanonicalizePass)
    assert seen > 0


def test_the_comparison_sees_rewrites():
    """At least one trn example's cleanup folds or erases something."""
    _, changed = checked_points(EXAMPLES / "trn" / "matmul_512.mlir", "trn",
                                FastCanonicalizePass, CanonicalizePass)
    assert changed > 0


def test_folds_erases_and_keeps_effects():
    """Constants fold, a dead pure op goes, a terminator and a symbol stay."""
    i32 = builtin.i32
    c1, c2 = arith.ConstantOp.from_int_and_width(1, 32), arith.ConstantOp.from_int_and_width(2, 32)
    total = arith.AddiOp(c1, c2)
    dead = arith.MuliOp(c1, c2)
    body = [c1, c2, total, dead, func.ReturnOp(total)]
    module = builtin.ModuleOp([func.FuncOp.from_region("f", [], [i32],
                                                       builtin.Region(builtin.Block(body)))])
    theirs = module.clone()
    ctx = make_context()
    FastCanonicalizePass().apply(ctx, module)
    CanonicalizePass().apply(ctx, theirs)
    text = str(module)
    assert text == str(theirs)
    assert "arith.addi" not in text and "arith.muli" not in text
    assert "arith.constant 3 : i32" in text and "func.return" in text
