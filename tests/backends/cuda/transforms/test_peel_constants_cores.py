"""cuda-peel-constants builds each core op (the non-constant op under a rewrite's new root) once
per round and block (`peel_constants._Peeler.core`) and erases the constants it left unused
(`_Peeler.erase_unused_constants`): the IR after the pass and the cse after it is the IR of the
pass that builds a twin each time and leaves them, on every tile example, and on
flash_attention_sm80 it builds ~200 ops fewer and leaves ~130 unused constants fewer."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith

from tirx_mlir.backends.cuda.transforms import peel_constants
from tirx_mlir.backends.cuda.transforms.peel_constants import CudaPeelConstantsPass
from tirx_mlir.dialects.tirx.op_build import arith_binary
from tirx_mlir.ir_insert import InsertBefore
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.transforms.cse import FastCSEPass

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"
EXAMPLES = sorted(p.stem for p in TILE.glob("*.mlir"))


def _before_peel(name: str):
    path = TILE / f"{name}.mlir"
    shots = get_pipeline("cuda").snapshots(parse_module(path.read_text(), str(path)))
    names = [n for n, _ in shots]
    return shots[names.index("cuda-peel-constants") - 1][1]


def _twin_each_time(self, b, kind, x, y, flags=None):
    return b.insert(arith_binary(kind, x, y, flags)).result


def _peel_then_cse(module) -> str:
    CudaPeelConstantsPass().apply(Context(), module)
    FastCSEPass().apply(Context(), module)
    return str(module)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_ir_after_the_cse_is_that_of_building_twins(monkeypatch, name):
    module = _before_peel(name)
    other = module.clone()
    ours = _peel_then_cse(module)
    monkeypatch.setattr(peel_constants._Peeler, "core", _twin_each_time)  # noqa: SLF001
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
    monkeypatch.setattr(peel_constants._Peeler, "core", _twin_each_time)  # noqa: SLF001
    CudaPeelConstantsPass().apply(Context(), other)
    assert 0 < ours <= len(built) - 150  # 1,481 -> 1,267 ops
    assert str(module) != str(other)  # the twins are there before the cse


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_ir_after_the_cse_is_that_of_leaving_unused_constants(monkeypatch, name):
    module = _before_peel(name)
    other = module.clone()
    ours = _peel_then_cse(module)
    monkeypatch.setattr(peel_constants._Peeler, "erase_unused_constants",  # noqa: SLF001
                        lambda self: None)
    assert ours == _peel_then_cse(other)


def test_flash_attention_leaves_fewer_unused_constants(monkeypatch):
    def unused_constants(module):
        return [op for op in module.walk()
                if type(op) is arith.ConstantOp and op.results[0].first_use is None]

    module = _before_peel("flash_attention_sm80")
    other = module.clone()
    CudaPeelConstantsPass().apply(Context(), module)
    monkeypatch.setattr(peel_constants._Peeler, "erase_unused_constants",  # noqa: SLF001
                        lambda self: None)
    CudaPeelConstantsPass().apply(Context(), other)
    # 126 fewer; those left were unused before the pass (cuda-narrow-index's index twins)
    assert len(unused_constants(other)) - len(unused_constants(module)) >= 100
