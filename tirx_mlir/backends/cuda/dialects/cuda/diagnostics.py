"""Diagnostics and timing: device ``printf``, ``clock64``, ``__nanosleep`` and ``__trap``."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.dialects.cuda.printf_format import conversions
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """Device ``printf(format, args...)``. The format is checked against a closed set of
    conversions (printf_format.py) and each argument against its conversion.

    ``cuda.printf "block %d: sum=%f\\n", %bx, %s : i32, f32``
    """

    name = "cuda.printf"
    format = prop_def(StringAttr)
    args = var_operand_def(AnyAttr())

    def __init__(self, fmt: str, args: list[SSAValue] = ()):  # type: ignore[assignment]
        super().__init__(operands=[list(args)], properties={"format": StringAttr(fmt)})

    def verify_(self) -> None:
        try:
            convs = conversions(self.format.data)
            if len(convs) != len(self.args):
                raise RuleError(f"the format has {len(convs)} conversion(s) but {len(self.args)} "
                                f"argument(s) are given; pass one argument per conversion")
            for i, (conv, arg) in enumerate(zip(convs, self.args)):
                if not conv.accepts(arg.type):
                    raise RuleError(f"argument #{i} for '{conv.text}' is {arg.type}; it must "
                                    f"be {conv.expected()}")
        except RuleError as err:
            raise VerifyException(str(err)) from None

    @classmethod
    def parse(cls, parser: Parser) -> "PrintfOp":
        fmt = parser.parse_str_literal(" (the format) after cuda.printf")
        unresolved = []
        if parser.parse_optional_punctuation(",") is not None:
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                           parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        types: list[Attribute] = []
        if unresolved:
            parser.parse_punctuation(":", " before the argument types of cuda.printf")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(unresolved):
                parser.raise_error(f"cuda.printf has {len(unresolved)} arguments but "
                                   f"{len(types)} types")
        args = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]
        op = cls(fmt, args)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.format.data)
        if self.args:
            printer.print_string(", ")
            printer.print_list(self.args, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        if self.args:
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)


@irdl_op_definition
class Clock64Op(CudaOp):
    """``clock64()``: the SM's 64-bit cycle counter.

    ``%t0 = cuda.clock64 : i64``
    """

    name = "cuda.clock64"
    RESULTS: ClassVar = ("i64",)
    result = result_def(AnyAttr())


@irdl_op_definition
class NanosleepOp(CudaOp):
    """``__nanosleep(ns)``: suspend the thread for about ``ns`` (i32) nanoseconds (at most
    one millisecond).

    ``cuda.nanosleep %ns : i32``
    """

    name = "cuda.nanosleep"
    ns = operand_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_type("ns", self.ns, checks.INT32, "it is a duration in nanoseconds")


@irdl_op_definition
class TrapOp(CudaOp):
    """``__trap()``: abort the kernel; the launch fails with an error on the host.

    ``cuda.trap``
    """

    name = "cuda.trap"


DIAGNOSTIC_OPS = (PrintfOp, Clock64Op, NanosleepOp, TrapOp)
