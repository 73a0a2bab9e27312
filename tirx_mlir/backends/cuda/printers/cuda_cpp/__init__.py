"""``-t cuda``: CUDA C++ from kernels of cuda / ptx / nvshmem ops.

``printer.py`` (the translation unit, kernels, cuda ops), ``inline_asm.py`` (ptx ops as
``asm volatile``), ``control_flow.py`` (scf), ``nvshmem_calls.py`` (NVSHMEM device calls),
``tables.py`` (every word that comes from an attribute or a type); docs/cuda.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target


def emit_cuda(module: ModuleOp) -> str:
    """The module as one CUDA C++ translation unit."""
    from tirx_mlir.backends.cuda.printers.cuda_cpp.printer import CudaCppPrinter

    return CudaCppPrinter(module).emit()


@dataclass(frozen=True)
class CudaTarget(Target):
    """``-t cuda``: one CUDA C++ translation unit (nvcc and NVRTC)."""

    name: ClassVar[str] = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_cuda(module))
