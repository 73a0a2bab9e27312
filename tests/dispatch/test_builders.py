"""The target-neutral dispatch builders (tirx_mlir.dispatch.builders) and the index-constant
pair they use (dialects.tirx.access.const_index / constant_value)."""

from __future__ import annotations

import pytest
from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, FloatAttr, IntegerAttr, StringAttr, f32
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

import tirx_mlir  # noqa: F401 - loads the backends
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import const_index, constant_value
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.rules import RuleError
from tirx_mlir.dispatch.builders import (align, alloc, check_config, config_choice, config_int,
                                         emit_loop, is_full, largest_divisor_at_most, reshape,
                                         scope_of, shape_of)
from tirx_mlir.dispatch.registry import DispatchFail


def _builder() -> tuple[Block, Builder]:
    block = Block()
    return block, Builder(InsertPoint.at_end(block))


def test_const_index_builds_and_constant_value_reads_back():
    block, b = _builder()
    five = const_index(b, 5)
    assert constant_value(five) == 5 and list(block.ops) == [five.owner]
    with ImplicitBuilder(block):
        seven = const_index(None, 7)
    assert constant_value(seven) == 7 and block.last_op is seven.owner
    half = b.insert(arith.ConstantOp(FloatAttr(0.5, f32))).result
    assert constant_value(half) == 0.5
    total = b.insert(arith.AddiOp(five, seven)).result
    assert constant_value(total) is None and constant_value(None) is None


def test_emit_loop_nests_and_alloc_reshape():
    block, b = _builder()
    inner, iv = emit_loop(b, 8, 2)
    (loop,) = [o for o in block.ops if isinstance(o, scf.ForOp)]
    assert [constant_value(v) for v in (loop.lb, loop.ub, loop.step)] == [0, 8, 2]
    assert iv is loop.body.block.args[0]
    innermost, _ = emit_loop(inner, 4, 1)
    assert isinstance(innermost.insertion_point.block.parent_op(), scf.ForOp)
    buf = alloc(b, [4, 6], f32, "global")
    assert isinstance(buf.type, BufferType) and scope_of(buf) == "global"
    assert reshape(b, buf, [4, 6]) is buf
    assert shape_of(reshape(b, buf, [2, 2, 6])) == (2, 2, 6)


def test_emit_loop_builds_the_loop_xdsls_constructors_build():
    block, b = _builder()
    emit_loop(b, 8, 2)
    (loop,) = [o for o in block.ops if isinstance(o, scf.ForOp)]
    body = Block(arg_types=[loop.body.block.args[0].type])
    body.add_op(scf.YieldOp())
    xdsl = scf.ForOp(loop.lb, loop.ub, loop.step, [], body)
    for mine, theirs in ((loop, xdsl), (loop.body.block.last_op, body.last_op)):
        assert type(mine) is type(theirs)
        assert (mine.properties, mine.attributes) == (theirs.properties, theirs.attributes)
        assert list(mine.operands) == list(theirs.operands) and not mine.results
        assert len(mine.regions) == len(theirs.regions) and not mine.successors
    assert loop.body.parent is loop and loop.body.block.parent is loop.body
    assert [a.type for a in loop.body.block.args] == [a.type for a in body.args]
    loop.verify()
    xdsl.drop_all_references()


def test_sizes_and_alignment():
    assert largest_divisor_at_most(12, 5) == 4
    assert largest_divisor_at_most(7, 100) == 7
    assert largest_divisor_at_most(7, 0) == 1
    assert align((128, 1), (128, 512), "x") == (128, 1)
    assert align((1, 512), (512,), "x") == (512,)
    assert align((512,), (128, 512), "x") == (1, 512)
    with pytest.raises(RuleError, match="x"):
        align((3,), (128, 512), "x")
    block, b = _builder()
    assert is_full(alloc(b, [1, 128, 4], f32, "global"), (128, 4))


def test_config_int_reads_positive_integers_and_declines_the_rest():
    block, b = _builder()
    x = alloc(b, [4], f32, "global")
    op = T.CopyOp(x, x)
    assert config_int(op, "max_inst_size") is None
    op.config = DictionaryAttr({"max_inst_size": IntegerAttr(64, 64), "bad": IntegerAttr(0, 64)})
    assert config_int(op, "max_inst_size") == 64
    with pytest.raises(DispatchFail, match="config bad must be a positive integer"):
        config_int(op, "bad")


def test_check_config_declines_keys_the_variant_does_not_take_naming_those_it_does():
    block, b = _builder()
    x = alloc(b, [4], f32, "global")
    op = T.CopyOp(x, x)
    check_config(op, ())
    op.config = DictionaryAttr({"fill_mode": StringAttr("zero"), "vec": IntegerAttr(4, 64)})
    check_config(op, ("fill_mode", "vec"))
    with pytest.raises(DispatchFail, match=r"config vec is not a config of this variant "
                                           r"\(it takes: fill_mode, direct\)"):
        check_config(op, ("fill_mode", "direct"))


def test_config_choice_reads_strings_ints_and_bools_from_their_set():
    block, b = _builder()
    x = alloc(b, [4], f32, "global")
    op = T.CopyOp(x, x)
    op.config = DictionaryAttr({"mode": StringAttr("nan"), "size": IntegerAttr(128, 64),
                                "direct": BoolAttr.from_bool(True), "one": IntegerAttr(1, 64)})
    assert config_choice(op, "mode", ("zero", "nan")) == "nan"
    assert config_choice(op, "size", (64, 128)) == 128
    assert config_choice(op, "direct", (True, False)) is True
    assert config_choice(op, "absent", (1, 2), 2) == 2
    with pytest.raises(DispatchFail, match='config mode must be one of "zero", got "nan"'):
        config_choice(op, "mode", ("zero",))
    with pytest.raises(DispatchFail, match="config one must be one of true, false, got 1"):
        config_choice(op, "one", (True, False))     # an integer 1 is not the bool true
