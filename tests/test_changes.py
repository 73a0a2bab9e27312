"""`tirx_mlir.changes`: what a pass reports reaches the verifier, and nothing outside a pass."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.pattern_rewriter import (PatternRewriter, PatternRewriteWalker, RewritePattern,
                                   op_type_rewrite_pattern)

from tirx_mlir.changes import ChangeLog, change_listener, current_changes, reporting_to
from tirx_mlir.located_parser import parse_module

KERNEL = """
tirx.kernel @k() -> () grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = arith.addi %c1, %c2 : index
  %y = arith.muli %x, %x : index
  tirx.return
}
"""


class _AddToSub(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))


def test_a_rewriters_replacement_reports_the_block_and_the_users():
    module = parse_module(KERNEL)
    add = next(op for op in module.walk() if op.name == "arith.addi")
    mul = next(op for op in module.walk() if op.name == "arith.muli")
    block = add.parent
    with reporting_to(ChangeLog()) as log:
        PatternRewriteWalker(_AddToSub(), listener=change_listener()).rewrite_module(module)
    assert block in log.blocks  # where the replaced op was (the new one sits there)
    assert mul in log.users  # its operand is now the new op's result
    assert mul not in log.ops  # only redirected: its own users are not reached through it


def test_outside_a_pass_reports_go_nowhere():
    first, second = current_changes(), current_changes()
    assert first is not second
    first.changed(arith.ConstantOp(IntegerAttr(1, IndexType())))
    assert current_changes().ops == []


class _TouchMul(RewritePattern):
    """Replaces the addi, then marks its user (the muli) modified: a change of its own."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        user = op.results[0].first_use.operation
        rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))
        rewriter.notify_op_modified(user)


def test_a_modification_after_the_replacement_is_a_change():
    module = parse_module(KERNEL)
    mul = next(op for op in module.walk() if op.name == "arith.muli")
    with reporting_to(ChangeLog()) as log:
        PatternRewriteWalker(_TouchMul(), listener=change_listener(),
                             apply_recursively=False).rewrite_module(module)
    assert mul in log.users and mul in log.ops


def test_a_log_goes_with_the_ops_it_names_without_the_cyclic_collector():
    """A log does not keep the listener it made (its handlers name the log: a cycle): once
    the pass and its walker let go of both, the log and an erased op it names are freed by
    reference counting, with the collector off as a pipeline runs its passes."""
    import gc
    import weakref

    from tirx_mlir.ir_uses import erase_op

    module = parse_module(KERNEL)
    mul = next(op for op in module.walk() if op.name == "arith.muli")
    was_on = gc.isenabled()
    gc.disable()
    try:
        log = ChangeLog()
        listener = log.listener()
        assert listener is not log.listener()  # made anew, not kept
        listener.operation_modification_handler[0](mul)  # reported changed
        log.removed(mul)
        erase_op(mul)
        assert log.ops == [mul]
        ref = weakref.ref(mul)
        del mul, log, listener
        assert ref() is None
    finally:
        if was_on:
            gc.enable()


def test_the_log_of_the_last_reporting_block_and_its_emptiness():
    from tirx_mlir.changes import forget_closed, last_closed

    module = parse_module(KERNEL)
    op = next(o for o in module.walk() if isinstance(o, arith.AddiOp))
    forget_closed()
    assert last_closed() is None
    with reporting_to(ChangeLog()) as outer:
        with reporting_to(ChangeLog()) as inner:
            pass
        assert last_closed() is inner and inner.empty
        current_changes().changed(op, inside=False)
    assert last_closed() is outer and not outer.empty
    for report in (lambda log: log.changed(op), lambda log: log.removed(op)):
        log = ChangeLog()
        report(log)
        assert not log.empty
    forget_closed()
    assert last_closed() is None


def test_a_move_reports_the_block_left_and_the_op_moved_not_its_users():
    """`ChangeLog.moving` then the usual removal and insertion: the block it left is named, the
    op is ``moved`` (not ``ops``) and its users are not taken as redirected."""
    module = parse_module(KERNEL)
    c1, c2, add = [op for op in module.walk() if op.name.startswith("arith.")][:3]
    block = c1.parent
    log = ChangeLog()
    log.moving(c2)
    log.removed(c2)
    c2.detach()
    block.insert_op_before(c2, c1)
    log.changed(c2)
    assert (log.moved, log.ops, log.users, log.blocks) == ([c2], [], [], [block])
    assert not log.empty


def test_a_moving_op_removed_again_or_changed_unmoved_is_reported_as_usual():
    """An op announced moving but removed twice (left, then erased) reports its users on the
    second removal; one changed without leaving its block is an ordinary change."""
    module = parse_module(KERNEL)
    c1, c2, add = [op for op in module.walk() if op.name.startswith("arith.")][:3]
    log = ChangeLog()
    log.moving(c2)
    log.removed(c2)
    log.removed(c2)
    assert log.users == [add] and log.moved == []
    log = ChangeLog()
    log.moving(c1)
    log.changed(c1)
    log.removed(c1)
    assert log.ops == [c1] and log.moved == [] and log.users == [add]
