"""cuda-peel-constants leaves ``x + c`` as it is where making it ``x ^ c`` could only come back
to the same ``x + c`` (`_Peeler.comes_back`): on every tile example the IR after the pass is the
IR of the pass that makes the round trip (both rewriting dead ops too), and on softmax_row the
pass now changes nothing (its 12 register indices ``4 * r + e`` stay the same ops, and it
reports nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith

from tirx_mlir.backends.cuda.transforms import peel_constants
from tirx_mlir.backends.cuda.transforms.peel_constants import CudaPeelConstantsPass
from tirx_mlir.changes import ChangeLog, reporting_to
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"
EXAMPLES = sorted(p.stem for p in TILE.glob("*.mlir"))


def _before_peel(name: str):
    path = TILE / f"{name}.mlir"
    shots = get_pipeline("cuda").snapshots(parse_module(path.read_text(), str(path)))
    names = [n for n, _ in shots]
    return shots[names.index("cuda-peel-constants") - 1][1]


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_ir_is_the_round_trips(monkeypatch, name):
    # dead ops rewritten as well: a dead ``x + c`` (no user, so `comes_back`) made ``x ^ c``
    # would stay one (`_unused`, checked against this in test_peel_constants_dead.py)
    monkeypatch.setattr(peel_constants, "_unused", lambda op: False)
    module = _before_peel(name)
    other = module.clone()
    CudaPeelConstantsPass().apply(Context(), module)
    monkeypatch.setattr(peel_constants._Peeler, "comes_back", lambda self, op, x, c: False)
    CudaPeelConstantsPass().apply(Context(), other)
    assert str(module) == str(other)


def test_softmax_rows_register_indices_are_left_as_they_are():
    module = _before_peel("softmax_row")
    before = str(module)
    adds = [op for op in module.walk() if isinstance(op, arith.AddiOp)]
    with reporting_to(ChangeLog()) as log:
        CudaPeelConstantsPass().apply(Context(), module)
    assert log.empty and str(module) == before
    assert [op for op in module.walk() if isinstance(op, arith.AddiOp)] == adds


def test_a_sum_a_step_reads_through_still_moves(monkeypatch):
    """gemm_sm80's swizzled offsets: sums feeding shifts, masks and xors are still made xors
    (the pass reports changes there), whatever `comes_back` answers for the others."""
    calls = []
    real = peel_constants._Peeler.comes_back
    monkeypatch.setattr(peel_constants._Peeler, "comes_back",
                        lambda self, op, x, c: calls.append(op) or real(self, op, x, c))
    module = _before_peel("gemm_sm80")
    with reporting_to(ChangeLog()) as log:
        CudaPeelConstantsPass().apply(Context(), module)
    assert calls and not log.empty
