"""CUDA tile dispatch builds each index constant, and each equal piece of index arithmetic, once
per insertion point (`SharingBuilder`): fewer ops right after dispatch, and the same IR as
building one per use once ``canonicalize`` and ``cse`` have run (the first of equal ops at a
point is the one cse keeps), to the end of the pipeline and its PTX."""

from __future__ import annotations

from pathlib import Path

import pytest

from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.ir_insert import SharingBuilder
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"


def _stages(name: str) -> tuple[list[str], object]:
    ctx = make_context()
    module = parse_module((TILE / f"{name}.mlir").read_text(), name, ctx)
    texts: list[str] = []
    get_pipeline("cuda").apply(module, ctx, callback=lambda p, m: texts.append(str(m)))
    return texts, module


@pytest.mark.parametrize("name", ["flash_attention_sm80", "softmax_row", "gemm_sm90a"])
def test_constants_shared_at_dispatch_leave_the_cleaned_up_ir_unchanged(name, monkeypatch):
    shared, shared_module = _stages(name)
    ptx = emit_ptx(shared_module)
    monkeypatch.setattr(SharingBuilder, "constant",
                        lambda self, value, type_, build: self.insert(build()))
    monkeypatch.setattr(SharingBuilder, "pure", lambda self, op: self.insert(op))
    monkeypatch.setattr(SharingBuilder, "binary",
                        lambda self, op_cls, lhs, rhs, build: self.insert(build()))
    each, each_module = _stages(name)
    dispatch = 2  # tirx-check-bounds, cuda-default-layout, tirx-dispatch
    assert shared[dispatch].count("arith.constant") < each[dispatch].count("arith.constant")
    if name == "flash_attention_sm80":  # thread coordinates and addresses repeated per chunk
        for kind in ("arith.muli", "arith.remui", "arith.addi"):
            assert shared[dispatch].count(kind) < each[dispatch].count(kind)
    first_cse = 6  # ... cuda-lower-layout, cuda-lower-scope-ids, canonicalize, cse
    assert shared[first_cse:] == each[first_cse:]
    assert emit_ptx(each_module) == ptx

