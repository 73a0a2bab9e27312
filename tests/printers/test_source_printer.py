"""The source-printer base: output and indentation, dispatch to ``emit_<op>`` with a located
error for any other op, and the blame of a failure on a malformed op."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64

from tirx_mlir.printers import C, PYTHON, PrintError, SourcePrinter


class Lines(SourcePrinter):
    """Prints each arith op of a module as an assignment, nested one level."""

    LANGUAGE = PYTHON
    DESCRIPTION = "test printer"
    ERROR_CODE = "test-print"

    def emit_module(self) -> str:
        self.line("def f():")
        with self.body():
            for op in self.module.ops:
                self.emit_op_here(op)
        return self.text()

    def emit_op_here(self, op) -> None:
        if op.dialect_name() == "arith":
            self.line(f"{self.namer.fresh('c')} = {self.expr(op.result)}")
        else:
            self.emit_op(op)


def constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, i64))


def test_lines_are_indented_and_empty_blocks_get_the_language_statement():
    assert Lines(ModuleOp([constant(3), constant(-4)])).emit() == \
        "def f():\n    c = 3\n    c_1 = -4\n"
    assert Lines(ModuleOp([])).emit() == "def f():\n    pass\n"


class Commented(Lines):
    """Lines, with a comment at the top of the function's body."""

    def emit_module(self) -> str:
        self.line("def f():")
        with self.body():
            self.line("# a comment is not a statement")
            for op in self.module.ops:
                self.emit_op_here(op)
        return self.text()


def test_a_block_of_comments_only_still_gets_the_empty_block_statement():
    assert Commented(ModuleOp([])).emit() == \
        "def f():\n    # a comment is not a statement\n    pass\n"
    assert Commented(ModuleOp([constant(3)])).emit() == \
        "def f():\n    # a comment is not a statement\n    c = 3\n"


def test_an_op_without_a_method_is_a_located_error_naming_it():
    op = _unprintable()
    with pytest.raises(PrintError, match=r"\[test-print\] the test printer cannot print "
                                         r"test.op") as info:
        Lines(ModuleOp([constant(1), op])).emit()
    assert info.value.op is op


def _unprintable():
    from xdsl.dialects.test import TestOp
    return TestOp()


def test_literals_outside_64_bits_are_refused():
    with pytest.raises(PrintError, match="outside the signed 64-bit range"):
        Lines(ModuleOp([arith.ConstantOp(IntegerAttr(2**70, _i128()))])).emit()


def _i128():
    from xdsl.dialects.builtin import IntegerType
    return IntegerType(128)


def test_a_failure_on_a_malformed_op_is_blamed_on_it():
    one, two = constant(1), constant(2)
    bad = arith.CmpiOp(one, two, "slt")
    bad.properties["predicate"] = StringAttr("<= 0 or __import__('os')")
    with pytest.raises(PrintError, match="arith.cmpi does not satisfy its own "
                                         "definition") as info:
        Lines(ModuleOp([one, two, bad])).emit()
    assert info.value.op is bad


def test_a_failure_on_well_formed_ir_is_a_printer_bug_and_propagates():
    class Broken(Lines):
        def emit_module(self) -> str:
            raise RuntimeError("printer bug")

    with pytest.raises(RuntimeError, match="printer bug"):
        Broken(ModuleOp([constant(1)])).emit()


def test_choose_prints_only_table_values():
    printer = Lines(ModuleOp([]))
    assert printer.choose({"add": "nl.add"}, "add", "operator", None) == "nl.add"
    for hostile in ("add)#", 3, None, "ADD"):
        with pytest.raises(PrintError, match="is not one the test printer prints"):
            printer.choose({"add": "nl.add"}, hostile, "operator", None)


def test_c_language_has_no_empty_block_statement():
    assert C.empty_block is None and PYTHON.empty_block == "pass"
