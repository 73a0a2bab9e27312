"""cuda-peel-constants leaves a dead ``x ^ c`` / ``x | c`` as it is where `back_to_add` would
make it ``x + c`` (`peel_constants._unused`): a live one still becomes ``x + c``, the IR after
the pass and the cse after it is the IR of the pass that rewrites dead ops too on every tile
example, and on flash_attention_sm80 the pass builds far fewer ops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith

from tirx_mlir.backends.cuda.transforms import peel_constants
from tirx_mlir.backends.cuda.transforms.peel_constants import CudaPeelConstantsPass
from tirx_mlir.changes import ChangeLog, reporting_to
from tirx_mlir.ir_insert import InsertBefore
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.transforms.cse import FastCSEPass
from tirx_testing.simt import cuda_kernel, run_simt

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"
EXAMPLES = sorted(p.stem for p in TILE.glob("*.mlir"))
G = "!tirx.buffer<128xf32, global>"


def _before_peel(name: str):
    path = TILE / f"{name}.mlir"
    shots = get_pipeline("cuda").snapshots(parse_module(path.read_text(), str(path)))
    names = [n for n, _ in shots]
    return shots[names.index("cuda-peel-constants") - 1][1]


def _peel_then_cse(module) -> str:
    CudaPeelConstantsPass().apply(Context(), module)
    FastCSEPass().apply(Context(), module)
    return str(module)


def test_a_dead_xor_stays_and_a_live_one_becomes_a_sum():
    text = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", "\n".join([
        "  %t = cuda.thread_idx x : index",
        "  %c64 = arith.constant 64 : index",
        "  %dead = arith.xori %t, %c64 : index",
        "  %live = arith.xori %t, %c64 : index",
        f"  %v = cuda.load %X, %live : {G}, index -> f32",
        f"  cuda.store %Y, %live, %v : {G}, index, f32"]), "grid [1] threads [64]",
        "cuda -arch=sm_80")
    module = parse_module(text, "k.mlir")
    with reporting_to(ChangeLog()) as log:
        CudaPeelConstantsPass().apply(Context(), module)
    module.verify()
    assert not log.empty  # the live xor was replaced, and reported
    xors = [op for op in module.walk() if isinstance(op, arith.XOrIOp)]
    adds = [op for op in module.walk() if isinstance(op, arith.AddiOp)]
    assert len(xors) == 1 and not xors[0].results[0].uses  # the dead one, as it was
    assert len(adds) == 1 and adds[0].results[0].uses  # the live one: t + 64
    x = np.arange(128, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, before)
    assert np.array_equal(after[64:], x[64:])


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_ir_after_the_cse_is_that_of_rewriting_dead_ops(monkeypatch, name):
    module = _before_peel(name)
    other = module.clone()
    ours = _peel_then_cse(module)
    monkeypatch.setattr(peel_constants, "_unused", lambda op: False)
    assert ours == _peel_then_cse(other)


def test_flash_attention_builds_fewer_ops(monkeypatch):
    built = []

    class Counting(InsertBefore):
        __slots__ = ()

        def insert(self, new):
            built.append(new)
            return super().insert(new)

    module = _before_peel("flash_attention_sm80")
    other = module.clone()
    monkeypatch.setattr(peel_constants, "InsertBefore", Counting)
    CudaPeelConstantsPass().apply(Context(), module)
    ours = len(built)
    built.clear()
    monkeypatch.setattr(peel_constants, "_unused", lambda op: False)
    CudaPeelConstantsPass().apply(Context(), other)
    assert 0 < ours <= len(built) - 150  # the dead sums: 192 of 1,673 ops
    assert str(module) != str(other)
