"""`plan.refine`: each operand's axes are those of its refined view's (unsplit) physical access,
whether the view was refined (another operand's layout tiles split a dim) or kept as it is (its
split access is then its unsplit one), for views inside one tile, split across tiles, and broadcast."""

from __future__ import annotations

import pytest
from xdsl.builder import Builder
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

import tirx_mlir  # noqa: F401  (loads the trn backend)
from tirx_mlir.backends.trn.dispatch.plan import PlanOperand, refine, root_layout
from tirx_mlir.backends.trn.layout.physical_access import physical_access
from tirx_mlir.dialects.tirx.access import shared_views
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, SliceOp
from tirx_mlir.dispatch.builders import shape_of
from tirx_mlir.located_parser import parse_module

T = 'target "aws/trn1/trn1.2xlarge"'
KERNEL = f"""
tirx.kernel @k(%A: !tirx.buffer<128x128xf32, global>) -> (%B: !tirx.buffer<128x128xf32, global>) grid [1] threads [1] {T} {{
  %big = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %rows = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf, "FP">
  %row = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %top = tirx.slice %big[0, 0] [128, 512] : !tirx.buffer<256x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
  %low = tirx.slice %big[128, 0] [128, 512] : !tirx.buffer<256x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
  %g = tirx.alloc : !tirx.buffer<256x512xf32, global>
  tirx.return
}}
"""


@pytest.fixture
def values():
    module = parse_module(KERNEL)
    named = {op.result.name_hint: op.result for op in module.walk()
             if isinstance(op, (AllocOp, SliceOp))}
    return module, named


def _refined(values, iter_shape, names):
    _, named = values
    operands = [PlanOperand(named[n], _aligned(named[n], iter_shape), n) for n in names]
    block = Block()
    with shared_views():
        plan = refine(Builder(InsertPoint.at_end(block)), iter_shape, operands)
    return plan, operands


def _aligned(value, iter_shape):
    shape = shape_of(value)
    return (1,) * (len(iter_shape) - len(shape)) + tuple(shape)


def _expected_axes(op):
    layout = root_layout(op.refined)
    if layout is None:
        return [(None, 0)] * len(shape_of(op.refined))
    pa = physical_access(op.refined, layout)
    return [(pa.axis_of(j), pa.step_of(j)) for j in range(len(shape_of(op.refined)))]


@pytest.mark.parametrize("iter_shape, names, sizes", [
    ((128, 512), ["top", "low"], [128, 512]),             # each inside one tile: kept as they are
    ((256, 512), ["big", "g"], [2, 128, 512]),           # the 256 rows split by the layout
    ((256, 512), ["big", "row"], [2, 128, 512]),         # a broadcast row beside them
    ((256, 512), ["rows", "big"], [2, 128, 4, 128]),     # each refined by the other's tiles
])
def test_axes_are_those_of_the_refined_view(values, iter_shape, names, sizes):
    plan, operands = _refined(values, iter_shape, names)
    assert plan.sizes == sizes
    for op in operands:
        assert op.axes == _expected_axes(op), op.name
    assert any(op.axes[j][0] == "P" for op in operands for j in range(len(sizes)))


def test_a_view_kept_as_it_is_has_its_split_access(values):
    plan, (top, low) = _refined(values, (128, 512), ["top", "low"])
    assert top.refined is top.value and top.axes == [("P", 1), ("F", 1)]
    assert low.refined is low.value and low.axes == [("P", 1), ("F", 1)]
