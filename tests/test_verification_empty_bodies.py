"""`tirx_mlir.verification._returns_none_only` (which traits check nothing) reads a function's
code bytes; its answers are the ones ``dis`` gives, on bodies that do nothing and on every
trait ``verify`` of xDSL and of the project's dialects."""

from __future__ import annotations

import dis

import xdsl.traits
from xdsl.traits import OpTrait

import tirx_mlir.backends.trn.dialects.nki  # noqa: F401 - its traits
import tirx_mlir.dialects.tirx  # noqa: F401 - its traits
from tirx_mlir.verification import _returns_none_only


def by_dis(function: object) -> bool:
    """The reading through ``dis`` this replaced."""
    if not hasattr(function, "__code__"):
        return False
    steps = [(i.opname, i.argval) for i in dis.get_instructions(function)  # type: ignore[arg-type]
             if i.opname not in ("RESUME", "NOP")]
    return steps in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


def empty_pass(self, op): pass
def empty_return(self, op): return
def empty_return_none(self, op): return None
def empty_doc(self, op): """Nothing to check."""
def empty_doc_pass(self, op):
    """Nothing to check."""
    pass
def empty_ellipsis(self, op): ...
def empty_dead_branch(self, op):
    if False:
        raise ValueError(op)
def empty_if_true(self, op):  # NOP for the folded test
    if True:
        pass
def empty_passes(self, op):  # a NOP per pass
    pass
    pass
    return
def returns_one(self, op): return 1
def returns_doc_like(self, op): return "None"
def returns_op(self, op): return op
def raises(self, op): raise ValueError(op)
def calls(self, op): op.verify()
def returns_zero(self, op): return 0
def many_constants(self, op):
    values = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)
    return values[0] if op else None


EMPTY = [empty_pass, empty_return, empty_return_none, empty_doc, empty_doc_pass, empty_ellipsis,
         empty_dead_branch, empty_if_true, empty_passes]
NOT_EMPTY = [returns_one, returns_doc_like, returns_op, raises, calls, returns_zero,
             many_constants, len, OpTrait, "verify"]


def test_bodies_that_do_nothing_and_bodies_that_do_something():
    for function in EMPTY:
        assert _returns_none_only(function), function.__name__
        assert by_dis(function), function.__name__
    for function in NOT_EMPTY:
        assert not _returns_none_only(function), function
        assert not by_dis(function), function


def test_every_trait_verify_answers_as_dis_reads_it():
    # the subclasses' tree, not gc.get_objects(): a tool run in this process may have frozen
    # the classes (gc.freeze), and frozen objects are not listed
    traits, todo = set(), [OpTrait]
    while todo:
        cls = todo.pop()
        if cls not in traits:
            traits.add(cls)
            todo.extend(cls.__subclasses__())
    verifies = {getattr(cls, "verify") for cls in traits}
    assert len(verifies) >= 12 and OpTrait.verify in verifies
    answers = {f: _returns_none_only(f) for f in verifies}
    assert answers == {f: by_dis(f) for f in verifies}
    # both kinds occur: the comparison covers a yes and a no
    assert any(answers.values()) and not all(answers.values())
    assert answers[xdsl.traits.Pure.verify] is True
