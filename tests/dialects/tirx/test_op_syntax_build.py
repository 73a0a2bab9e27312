"""`KeywordOp`'s direct build (`op_syntax._build_directly`) makes the op xDSL's `irdl_op_init`
makes: every op of a lowered trn and cuda kernel that the pipeline built is rebuilt through
xDSL's builder from the same operand groups and properties, and the two agree on operands and
properties (key order included: it is the printed order)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation

from tirx_mlir.dialects.tirx import op_syntax
from tirx_mlir.dialects.tirx.op_syntax import KeywordOp
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _rebuilt_by_xdsl(op: KeywordOp) -> IRDLOperation:
    groups, pos = [], 0
    for _, kind, size in op_syntax._segment_sizes(op):
        values = list(op.operands[pos:pos + size])
        groups.append(values[0] if kind == "single" else values)
        pos += size
    properties = {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}
    other = type(op).__new__(type(op))
    IRDLOperation.__init__(other, operands=groups, properties=properties)
    return other


@pytest.mark.parametrize("pipeline,path", [("trn", EXAMPLES / "trn" / "softmax_128x512.mlir"),
                                           ("trn", EXAMPLES / "trn" / "matmul_512.mlir"),
                                           ("cuda", EXAMPLES / "cuda" / "tile" / "softmax.mlir")])
def test_direct_build_equals_xdsl_builder(pipeline, path):
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    get_pipeline(pipeline).apply(module, ctx)
    checked = 0
    for op in module.walk():
        if not isinstance(op, KeywordOp) or op.regions or op.results:
            continue
        other = _rebuilt_by_xdsl(op)
        assert list(other.operands) == list(op.operands), op.name
        assert list(other.properties.items()) == list(op.properties.items()), op.name
        checked += 1
    assert checked > 0
    assert any(op_syntax._DIRECT_BUILD.get(type(op), (False,))[0] for op in module.walk())


def test_a_bad_operand_still_gets_xdsls_error():
    """An argument the direct build does not take goes to xDSL's builder, which reports it."""
    from tirx_mlir.dialects.tirx import tile_ops as T

    with pytest.raises(Exception):
        T.CopyOp("not a value", "nor this")
