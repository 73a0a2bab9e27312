"""`tirx_mlir.ir_uses.replace_uses` makes the change xDSL's ``replace_all_uses_with`` makes: the
same operands, the same use lists in the same order (a later walk of the uses, or a pass that
takes the first use, sees what it would), the same name hint; `erase_op` erases as xDSL's
``Rewriter.erase_op`` does (and refuses what it refuses)."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, builtin
from xdsl.ir import Block
from xdsl.rewriter import Rewriter

from tirx_mlir.ir_uses import erase_op, replace_uses


def _program():
    """Two values and users of both, one user using the old value twice."""
    block = Block(arg_types=[builtin.i32, builtin.i32, builtin.i32])
    old, new, other = block.args
    ops = [arith.AddiOp(old, other), arith.MuliOp(old, old), arith.SubiOp(new, old),
           arith.AddiOp(new, new), arith.XOrIOp(other, old)]
    for op in ops:
        block.add_op(op)
    return block, old, new, ops


def _state(block, ops):
    def uses(v):
        return [(ops.index(u.operation), u.index) for u in v.uses]
    return ([[block.args.index(v) for v in op.operands] for op in ops],
            [uses(v) for v in block.args], [v.name_hint for v in block.args],
            [[(ops.index(u.operation), u.index) for u in op._operand_uses] for op in ops])


@pytest.mark.parametrize("names", [(None, None), ("a", None), ("a", "b"), (None, "b")])
def test_same_change_as_xdsl(names):
    ours, xdsl = _program(), _program()
    for block, old, new, _ in (ours, xdsl):
        old.name_hint, new.name_hint = names
    replace_uses(ours[1], ours[2])
    xdsl[1].replace_all_uses_with(xdsl[2])
    assert _state(ours[0], ours[3]) == _state(xdsl[0], xdsl[3])
    assert ours[1].first_use is None and ours[2].name_hint == (names[1] or names[0])
    back = [(u.operation, u.index) for u in ours[2].uses]
    assert all(u.operation._operand_uses[u.index] is u for u in ours[2].uses) and len(back) == 8


def test_a_value_replaced_by_itself_is_unchanged():
    block, old, _, ops = _program()
    before = _state(block, ops)
    replace_uses(old, old)
    assert _state(block, ops) == before


def _links(block):
    """The block's ops in order, each with its operands' use lists (by op and index)."""
    ops = list(block.ops)
    return [(type(op).__name__, [[(ops.index(u.operation), u.index) for u in v.uses]
                                 for v in op.operands]) for op in ops]


@pytest.mark.parametrize("at", [0, 1, 3, 4])  # the first, inner and last ops of the block
def test_erase_op_as_xdsl_erases(at):
    ours, xdsl = _program(), _program()
    for block, old, new, ops in (ours, xdsl):
        ops.append(arith.AddiOp(ops[0], ops[1]))  # makes ops 0 and 1 used
        block.add_op(ops[-1])
    victims = [ops[-1] if at in (0, 1) else ops[at] for *_, ops in (ours, xdsl)]
    erase_op(victims[0])
    Rewriter.erase_op(victims[1])
    assert _links(ours[0]) == _links(xdsl[0])
    for gone in victims:
        assert gone.parent is None and gone._next_op is None and gone._prev_op is None
        assert gone._operand_uses == () and all(r.first_use is None for r in gone.results)
    assert [v.first_use is None for v in ours[0].args] == [v.first_use is None
                                                           for v in xdsl[0].args]


def test_erase_op_of_a_used_op_is_refused_or_redirected_as_xdsl_does():
    for unsafe in (False, True):
        block, old, new, ops = _program()
        user = arith.AddiOp(ops[0], ops[0])
        block.add_op(user)
        if not unsafe:
            with pytest.raises(ValueError, match="still has uses"):
                erase_op(ops[0])
            continue
        erase_op(ops[0], safe_erase=False)
        assert ops[0].parent is None
        assert all(type(v).__name__ == "ErasedSSAValue" for v in user.operands)


def test_an_erased_op_is_freed_without_the_cyclic_collector():
    """`erase_op` lets go of the erased op's results (each names its op: a cycle the cyclic
    collector, paused in a pipeline, would have to free): with the collector off the op goes
    as soon as nothing holds it; xDSL's erasure leaves the cycle. A used op keeps xDSL's path
    and its results."""
    import gc
    import weakref

    was_on = gc.isenabled()
    gc.disable()
    try:
        gone = {}
        for how in ("ours", "xdsl"):
            block, old, new, ops = _program()
            victim = ops[-1]
            results = victim.results
            assert results and all(r.first_use is None for r in results)
            ref = weakref.ref(victim)
            (erase_op if how == "ours" else Rewriter.erase_op)(victim)
            if how == "ours":
                assert victim.results == () and victim.parent is None
            del victim, ops, results
            gone[how] = ref() is None
        assert gone == {"ours": True, "xdsl": False}
    finally:
        if was_on:
            gc.enable()
    block, old, new, ops = _program()
    user = arith.AddiOp(ops[0], ops[0])
    block.add_op(user)
    erase_op(ops[0], safe_erase=False)
    assert len(ops[0].results) == 1
