"""KeywordOp.named_operands: the answer kept with the op follows every change of its operands
(a new operand list, one operand replaced, an optional operand added) and of its segment sizes,
and a caller that edits the returned dict does not change what the next call returns."""

from __future__ import annotations

from xdsl.dialects.builtin import f32
from xdsl.ir import Block

from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.attributes import BufferType


def _values(n: int):
    t = BufferType([128, 4], f32, "global")
    return Block(arg_types=[t] * n).args


def test_the_kept_answer_follows_the_operands():
    a, b, c, d = _values(4)
    op = T.AddOp(a, b, c)
    assert op.named_operands() == {"dst": a, "lhs": b, "rhs": c}
    op.operands[1] = d  # one operand replaced
    assert op.named_operands() == {"dst": a, "lhs": d, "rhs": c}
    op.operands = [c, b, a]  # a new operand list
    assert op.named_operands() == {"dst": c, "lhs": b, "rhs": a}


def test_editing_the_returned_dict_does_not_change_the_next_answer():
    a, b, c = _values(3)
    op = T.AddOp(a, b, c)
    named = op.named_operands()
    named["dst"] = c
    del named["lhs"]
    assert op.named_operands() == {"dst": a, "lhs": b, "rhs": c}


def test_the_kept_answer_follows_the_segment_sizes():
    """A gemm's optional accumulator ``c``: the segment-size attribute changes with it."""
    d, a, b, c = _values(4)
    gemm = T.GemmOp(d, a, b)
    assert "c" not in gemm.named_operands()
    with_c = T.GemmOp(d, a, b, c)
    assert with_c.named_operands()["c"] is c
    gemm.operands = list(with_c.operands)
    gemm.properties = dict(with_c.properties)
    assert gemm.named_operands() == with_c.named_operands()
