"""`Predicate.evaluate`: a predicate is called with the op, the context and its own keyword
arguments, no more (one without any is called with exactly two arguments)."""

from __future__ import annotations

from tirx_mlir.dispatch import predicate
from tirx_mlir.dispatch.registry import DispatchFail


def test_a_predicate_without_keywords_is_called_with_the_op_and_the_context_only():
    seen = []

    def check(op, ctx):  # a third argument of any kind would be a TypeError (a reject)
        seen.append((op, ctx))
        return True

    assert predicate("plain", check).evaluate("op", "ctx") == (True, "")
    assert seen == [("op", "ctx")]


def test_a_predicate_gets_its_keywords_each_time():
    def check(op, ctx, *, limit, what):
        return len(op) <= limit, f"{what}: longer than {limit}"

    p = predicate("short", check, limit=3, what="op")
    assert p.evaluate("abc", None) == (True, "op: longer than 3")
    assert p.evaluate("abcd", None) == (False, "op: longer than 3")


def test_a_crash_or_a_fail_is_a_reject_with_or_without_keywords():
    def crash(op, ctx):
        raise KeyError("x")

    def refuse(op, ctx, why):
        raise DispatchFail(why)

    assert predicate("crash", crash).evaluate(None, None) == \
        (False, "predicate exception: KeyError: 'x'")
    assert predicate("refuse", refuse, why="no").evaluate(None, None) == (False, "no")
