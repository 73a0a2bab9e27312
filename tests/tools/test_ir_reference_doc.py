"""docs/ir.md stays true: its examples parse and verify, it documents every tirx op, its layout
worked example is what TileLayout computes, and its softmax / layer-norm examples compute what
numpy computes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.located_parser import parse_module

DOC = Path(__file__).resolve().parents[2] / "docs" / "ir.md"
TEXT = DOC.read_text()
BLOCKS = re.findall(r"```mlir\n(.*?)```", TEXT, flags=re.DOTALL)


def block_with(name: str) -> str:
    return next(b for b in BLOCKS if f"tirx.kernel @{name}(" in b)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_every_mlir_block_parses_and_verifies(index: int) -> None:
    module = parse_module(BLOCKS[index], f"ir.md#block{index}")
    module.verify()


def test_every_op_has_a_section_and_an_example() -> None:
    from tirx_mlir.dialects.tirx import TIRX

    used: set[str] = set()
    for i, block in enumerate(BLOCKS):
        used |= {op.name for op in parse_module(block, f"ir.md#block{i}").walk()}
    headings = set(re.findall(r"^#+ `(tirx\.\w+)`", TEXT, flags=re.MULTILINE))
    names = {op.name for op in TIRX.operations}
    assert names - headings == set(), "ops without a section in docs/ir.md"
    assert names - used == set(), "ops without an example in docs/ir.md"
    for attr in TIRX.attributes:
        spelled = "#tirx<exec_scope" if attr.name == "tirx.exec_scope" else attr.name
        assert any(spelled in block for block in BLOCKS), f"{attr.name} has no example"


def test_layout_worked_example_matches_tilelayout() -> None:
    from tirx_mlir.dialects.tirx.layout import TileLayout

    m = re.search(r"<!-- layout-example: (.*) on (\d+)x(\d+) -->\n(.*?)\n\n", TEXT, re.DOTALL)
    assert m is not None
    layout, shape = TileLayout.parse(m.group(1)), (int(m.group(2)), int(m.group(3)))
    rows = re.findall(r"^\| \[(\d+), (\d+)\] \| (.*) \|$", m.group(4), flags=re.MULTILINE)
    assert len(rows) >= 5
    for r, c, coords in rows:
        stated = {k: int(v) for k, v in (kv.split("=") for kv in coords.split(", "))}
        assert layout.apply((int(r), int(c)), shape) == stated, (r, c)
    assert [o.get("warpid", 0) for o in layout.replica_offsets()] == [0, 4]


def test_softmax_and_layernorm_examples_compute_what_they_say() -> None:
    interpret = pytest.importorskip("tirx_mlir.interpreter").interpret
    x = np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)

    y = interpret(block_with("softmax"), "softmax", x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-7)

    y = interpret(block_with("layernorm"), "layernorm", x)
    mean = x.mean(axis=1, keepdims=True)
    ref = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
