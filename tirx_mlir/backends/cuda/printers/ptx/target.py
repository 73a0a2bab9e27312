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


class PtxPrinter(DirectLoops, ControlFlow, ArithOps, MathOps, LocalRegisters, CudaOps, PtxFrame):
    """Prints a module as one PTX module (see the package docstring)."""


@dataclass(frozen=True)
class PtxTarget(Target):
    """``-t ptx``: one PTX module for the module's kernels."""

    name: ClassVar[str] = "ptx"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(PtxPrinter(module).emit())
