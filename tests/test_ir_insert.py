"""`tirx_mlir.ir_insert` puts an op where xDSL's ``Rewriter.insert_op`` puts it: the same order,
the same links both ways, the same parent, first and last op; what xDSL refuses it refuses."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, builtin, scf
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.ir_insert import (InsertBefore, insert_after, insert_at_start, insert_before,
                                 move_ops_before)


def _block(n: int) -> Block:
    block = Block()
    for i in range(n):
        block.add_op(arith.ConstantOp.from_int_and_width(i, 32))
    return block


def _state(block: Block) -> list:
    """Each op's value and its neighbours' values both ways, and the block's ends."""
    def value(op):
        return None if op is None else op.value.value.data
    ops = list(block.ops)
    assert all(op.parent is block for op in ops)
    return ([(value(op._prev_op), value(op), value(op._next_op)) for op in ops],
            value(block.first_op), value(block.last_op))


def _new(i: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(100 + i, 32)


@pytest.mark.parametrize("n,at", [(3, 0), (3, 1), (3, 2), (1, 0)])
def test_before_and_after_as_xdsl(n, at):
    for ours_fn, point in ((insert_before, InsertPoint.before),
                           (insert_after, InsertPoint.after)):
        mine, theirs = _block(n), _block(n)
        ours_fn(_new(0), list(mine.ops)[at])
        Rewriter.insert_op(_new(0), point(list(theirs.ops)[at]))
        assert _state(mine) == _state(theirs)


def test_at_start_and_in_order_before_one_op():
    for n in (0, 2):
        mine, theirs = _block(n), _block(n)
        insert_at_start(_new(0), mine)
        Rewriter.insert_op(_new(0), InsertPoint.at_start(theirs))
        assert _state(mine) == _state(theirs)
    mine, theirs = _block(2), _block(2)
    b = InsertBefore(list(mine.ops)[1])
    for i in range(3):
        assert b.insert(new := _new(i)) is new
    anchor = list(theirs.ops)[1]
    for i in range(3):
        Rewriter.insert_op(_new(i), InsertPoint.before(anchor))
    assert _state(mine) == _state(theirs)
    assert [op.value.value.data for op in mine.ops] == [0, 100, 101, 102, 1]


def test_refusals_are_xdsls():
    """An op already in a block, an anchor in none, and an op that holds the block: errors."""
    block = _block(2)
    first, second = block.ops
    with pytest.raises(ValueError):
        insert_before(second, first)
    with pytest.raises(ValueError):
        insert_before(_new(0), _new(1))
    loop_body = Block(arg_types=[builtin.IndexType()])
    c = arith.ConstantOp.from_int_and_width(0, builtin.IndexType())
    loop = scf.ForOp(c, c, c, [], Region(loop_body))
    loop_body.add_op(inner := scf.YieldOp())
    with pytest.raises(ValueError):
        insert_before(loop, inner)  # a loop inside its own body


def test_move_ops_before_is_detach_and_insert_each():
    """A block's ops spliced before an op: the same order and links as moving them one by one;
    the source block left empty; an anchor inside the source block is refused."""
    for at in (0, 1):
        mine, theirs = _block(2), _block(2)
        src_mine, src_theirs = _block(0), _block(0)
        for i in range(3):
            src_mine.add_op(_new(i))
            src_theirs.add_op(_new(i))
        moved = move_ops_before(src_mine, list(mine.ops)[at])
        anchor = list(theirs.ops)[at]
        for o in list(src_theirs.ops):
            o.detach()
            theirs.insert_op_before(o, anchor)
        assert _state(mine) == _state(theirs)
        assert [o.value.value.data for o in moved] == [100, 101, 102]
        assert src_mine.first_op is None and src_mine.last_op is None
    assert move_ops_before(_block(0), list(_block(1).ops)[0]) == []
    body = Block(arg_types=[builtin.IndexType()])
    c = arith.ConstantOp.from_int_and_width(0, builtin.IndexType())
    loop = scf.ForOp(c, c, c, [], Region(body))
    body.add_op(inner := scf.YieldOp())
    outer = _block(0)
    outer.add_op(loop)
    with pytest.raises(ValueError):
        move_ops_before(outer, inner)


def test_linking_builder_inserts_as_xdsls_builder():
    """`LinkingBuilder` at the end of a block (empty or not) and before an op: the same order,
    links and ends as xDSL's `Builder`; each insert returns the op."""
    from xdsl.builder import Builder

    from tirx_mlir.ir_insert import LinkingBuilder

    for n, point in ((0, None), (2, None), (2, 0), (2, 1)):
        mine, theirs = _block(n), _block(n)
        if point is None:
            ours = LinkingBuilder(InsertPoint.at_end(mine))
            xdsls = Builder(InsertPoint.at_end(theirs))
        else:
            ours = LinkingBuilder(InsertPoint.before(list(mine.ops)[point]))
            xdsls = Builder(InsertPoint.before(list(theirs.ops)[point]))
        for i in range(3):
            assert ours.insert(new := _new(i)) is new
            xdsls.insert(_new(i))
        assert _state(mine) == _state(theirs)


def test_linking_builder_leaves_the_rest_to_xdsl():
    """What it does not link itself goes to xDSL's builder: a list of ops, a name hint, the
    insertion callbacks (which hear each op), an op with regions; and it refuses what xDSL
    refuses (an op already in a block, an anchor moved out of the insertion point's block)."""
    from tirx_mlir.ir_insert import LinkingBuilder

    block = _block(0)
    b = LinkingBuilder(InsertPoint.at_end(block))
    b.insert([_new(0), _new(1)])
    heard = []
    b.operation_insertion_handler.append(heard.append)
    b.insert(third := _new(2))
    assert heard == [third]
    named = LinkingBuilder(InsertPoint.at_end(block), _name_hint="x")
    named.insert(fourth := _new(3))
    assert fourth.results[0].name_hint == "x"
    body = Block(arg_types=[builtin.IndexType()])
    body.add_op(scf.YieldOp())
    c = _new(4)
    b.insert(c)
    b.insert(loop := scf.ForOp(c.result, c.result, c.result, [], Region(body)))
    assert [op.name for op in block.ops][-1] == "scf.for" and loop.parent is block
    assert [o.value.value.data for o in list(block.ops)[:5]] == [100, 101, 102, 103, 104]
    with pytest.raises(ValueError):
        b.insert(third)  # already in the block
    other = _block(2)
    anchor = list(other.ops)[1]
    moved = LinkingBuilder(InsertPoint.before(anchor))
    anchor.detach()
    _block(0).add_op(anchor)
    with pytest.raises(ValueError):
        moved.insert(_new(5))  # the anchor is no longer in the point's block: xDSL raises


def test_a_sharing_builder_builds_each_constant_once_per_insertion_point():
    from xdsl.dialects.builtin import IndexType

    from tirx_mlir.dialects.tirx.access import const_index
    from tirx_mlir.ir_insert import LinkingBuilder, SharingBuilder, nested_builder

    block = _block(2)
    anchor = block.last_op
    b = SharingBuilder(InsertPoint.before(anchor))
    c4, c8, again = const_index(b, 4), const_index(b, 8), const_index(b, 4)
    assert again is c4 and c8 is not c4  # one op per value
    assert [op.value.value.data for op in block.ops] == [0, 4, 8, 1]
    assert c4.type == IndexType()
    i32 = b.constant(4, builtin.i32, lambda: arith.ConstantOp.from_int_and_width(4, 32))
    assert i32.result is not c4  # keyed by type too
    # another insertion point (even in the same block) builds its own
    b.insertion_point = InsertPoint.before(block.first_op)
    first = const_index(b, 4)
    assert first is not c4 and block.first_op is first.owner
    b.insertion_point = InsertPoint.before(anchor)
    assert const_index(b, 4) is c4  # back at the first point: its constant is still there
    c4.owner.detach()  # moved away (as dispatch moves its scratch block's ops): built anew
    assert const_index(b, 4) is not c4
    # a region opened from a sharing builder gets one; a plain builder shares nothing
    assert type(nested_builder(b, InsertPoint.at_end(Block()))) is SharingBuilder
    plain = LinkingBuilder(InsertPoint.at_end(Block()))
    assert type(nested_builder(plain, InsertPoint.at_end(Block()))) is LinkingBuilder
    assert const_index(plain, 4) is not const_index(plain, 4)


def test_a_sharing_builder_inserts_equal_arithmetic_once_per_insertion_point():
    from xdsl.dialects.builtin import IndexType

    from tirx_mlir.dialects.tirx.op_build import arith_binary
    from tirx_mlir.ir_insert import LinkingBuilder, SharingBuilder, insert_pure

    block = _block(1)
    x, y = (arith.ConstantOp.from_int_and_width(i, IndexType()) for i in (5, 7))
    block.add_op(x)
    block.add_op(y)
    b = SharingBuilder(InsertPoint.at_end(block))
    first = insert_pure(b, arith_binary(arith.MuliOp, x.result, y.result))
    dup = arith_binary(arith.MuliOp, x.result, y.result)
    assert insert_pure(b, dup) is first and dup.parent is None
    assert len(list(x.result.uses)) == 1  # the dropped op's operand uses undone
    swapped = insert_pure(b, arith_binary(arith.MuliOp, y.result, x.result))
    added = insert_pure(b, arith_binary(arith.AddiOp, x.result, y.result))
    assert swapped is not first and added is not first  # operands in order, and the class
    assert [op.name for op in block.ops][-3:] == ["arith.muli"] * 2 + ["arith.addi"]
    plain = LinkingBuilder(InsertPoint.at_end(block))
    assert insert_pure(plain, arith_binary(arith.MuliOp, x.result, y.result)) is not first


def test_insert_binary_shares_what_insert_pure_shares_without_building_it():
    from xdsl.dialects.builtin import IndexType

    from tirx_mlir.dialects.tirx.access import insert_binary
    from tirx_mlir.dialects.tirx.op_build import arith_binary
    from tirx_mlir.ir_insert import LinkingBuilder, SharingBuilder

    block = _block(1)
    x, y = (arith.ConstantOp.from_int_and_width(i, IndexType()) for i in (5, 7))
    block.add_op(x)
    block.add_op(y)
    b = SharingBuilder(InsertPoint.at_end(block))
    first = insert_binary(b, arith.MuliOp, x.result, y.result)
    expected = arith_binary(arith.MuliOp, x.result, y.result)
    assert (first.owner.properties, first.type) == (expected.properties, expected.result.type)
    expected.drop_all_references()
    built = []
    assert b.binary(arith.MuliOp, x.result, y.result, lambda: built.append(1)) is first.owner
    assert built == []  # found before anything is built
    assert insert_binary(b, arith.MuliOp, x.result, y.result) is first
    assert len(list(x.result.uses)) == 1
    swapped = insert_binary(b, arith.MuliOp, y.result, x.result)
    added = insert_binary(b, arith.AddiOp, x.result, y.result)
    assert swapped is not first and added is not first  # operands in order, and the class
    assert [op.name for op in block.ops][-3:] == ["arith.muli"] * 2 + ["arith.addi"]
    b.insertion_point = InsertPoint.before(first.owner)  # another point builds its own
    assert insert_binary(b, arith.MuliOp, x.result, y.result) is not first
    b.insertion_point = InsertPoint.at_end(block)
    first.owner.detach()  # moved away: built anew
    assert insert_binary(b, arith.MuliOp, x.result, y.result) is not first
    plain = LinkingBuilder(InsertPoint.at_end(block))
    assert insert_binary(plain, arith.MuliOp, x.result, y.result) is not \
        insert_binary(plain, arith.MuliOp, x.result, y.result)
