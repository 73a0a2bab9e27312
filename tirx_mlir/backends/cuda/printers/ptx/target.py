"""The PTX printer class (the frame with control flow, arith, cuda ops and local arrays in
registers) and the xDSL ``-t ptx``
target (registered in registry.printers by the cuda backend)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from tirx_mlir.backends.cuda.printers.ptx.arith import ArithOps
from tirx_mlir.backends.cuda.printers.ptx.direct_loops import DirectLoops
from tirx_mlir.backends.cuda.printers.ptx.math_ops import MathOps
from tirx_mlir.backends.cuda.printers.ptx.control_flow import ControlFlow
from tirx_mlir.backends.cuda.printers.ptx.cuda_ops import CudaOps
from tirx_mlir.backends.cuda.printers.ptx.local_registers import LocalRegisters
from tirx_mlir.backends.cuda.printers.ptx.printer import PtxFrame
from tirx_mlir.gc_pause import collector_paused


class PtxPrinter(DirectLoops, ControlFlow, ArithOps, MathOps, LocalRegisters, CudaOps, PtxFrame):
    """Prints a module as one PTX module (see the package docstring)."""


@dataclass(frozen=True)
class PtxTarget(Target):
    """``-t ptx``: one PTX module for the module's kernels."""

    name: ClassVar[str] = "ptx"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(print_ptx(module))


def print_ptx(module: ModuleOp) -> str:
    """``PtxPrinter(module).emit()``, the printer made and dropped while the cyclic collector
    is paused: what it built (the expansion plan, registers, names) is freed by reference
    counting before the collector runs again, instead of being traversed, alive, by the
    collection that the allocations of the print trigger when the collector comes back on."""
    with collector_paused():
        printer = PtxPrinter(module)
        try:
            return printer.emit()
        finally:
            printer.release()
            del printer
