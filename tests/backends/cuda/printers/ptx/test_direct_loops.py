"""printers/ptx/direct_loops.py and expansion_plan.py: register loops printed from a plan
(records, no copied ops) give the text the printer gives for the expanded copy (unroll.py),
on loops that exercise each decision of the expansion and each question the printer asks of
the expanded program; loops the plan does not cover print from the copy."""

from __future__ import annotations

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.ptx.target import PtxPrinter
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

from tirx_testing.register_loops import KERNEL

load("cuda")
PTXAS = toolchain.find_tool("ptxas")


class CopyPrinter(PtxPrinter):
    """The printer without plans: every register loop expanded on a copy (unroll.py)."""

    DIRECT_LOOPS = False


def _both(text: str, name: str = "direct.mlir") -> tuple[PtxPrinter, str, str]:
    printer = PtxPrinter(parse_module(text, name))
    direct = printer.emit()
    return printer, direct, CopyPrinter(parse_module(text, name)).emit()


def test_planned_loops_print_the_text_of_the_expanded_copy():
    printer, direct, copied = _both(KERNEL)
    assert printer.plan is not None
    assert direct == copied
    assert "bra" not in direct  # every loop expanded
    assert ".reg .f32 %regs_<4>;" in direct  # constant indices only: registers
    assert ".local .align 16 .b8 local_acc[64];" in direct  # a divui index: memory
    assert "add.s64 %rd14, %rd14, 4;" in direct  # the reassociated + 1, as an immediate
    assert "mul.hi.u64" in direct  # t / 3 by a constant made in the third iteration
    if PTXAS is not None:
        result = toolchain.assemble(direct, "sm_80", ptxas=PTXAS, extra=("-v",))
        assert result.ok, result.log


def test_a_loop_with_carried_values_prints_from_the_copy():
    text = KERNEL.replace("scf.for %i = %c0 to %c4 step %c1 {\n    %v",
                          "%z = arith.constant 0.0 : f32\n"
                          "  %sum = scf.for %i = %c0 to %c4 step %c1 "
                          "iter_args(%acc_s = %z) -> (f32) {\n"
                          "    %v").replace(
        "    cuda.store %Y, %o, %r : !tirx.buffer<1024xf32, global>, index, f32\n    scf.yield\n",
        "    cuda.store %Y, %o, %r : !tirx.buffer<1024xf32, global>, index, f32\n"
        "    %s2 = arith.addf %acc_s, %r : f32\n    scf.yield %s2 : f32\n")
    assert "iter_args" in text and "scf.yield %s2" in text
    printer, direct, copied = _both(text)
    assert printer.plan is None and direct == copied


def test_a_loop_that_cannot_be_expanded_is_refused_at_the_loop_as_before():
    text = KERNEL.replace("scf.for %i = %c0 to %c4 step %c1 {\n    %v",
                          "%n = arith.remui %t, %c8 : index\n"
                          "  scf.for %i = %c0 to %n step %c1 {\n    %v")
    for printer in (PtxPrinter, CopyPrinter):
        with pytest.raises(PrintError, match="not constants") as err:
            printer(parse_module(text, "dynamic.mlir")).emit()
        assert err.value.op.name == "scf.for"
