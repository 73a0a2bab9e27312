"""``trn-allocate``: SBUF and PSUM addresses with liveness-based reuse.

Every physical on-chip tile (``[P, F]`` after ``trn-lower-layout``) gets ``trn.addr``: its byte
offset inside each partition (the NKI printers emit it as ``mod_alloc(base_addr=...)`` /
``address=``). The core allocator (`tirx_mlir.transforms.allocate`) does the work: live ranges
(a buffer used in a loop is live for the whole loop), first-fit placement that reuses the memory
of dead buffers (TIRx's allocator never reuses), and the failure report with the bytes needed and
available per partition and the buffers live at the peak. This pass gives it Trainium's two
memories for the kernel's target (`memory.memory_spaces`): SBUF less its reserved bytes, aligned
to ``align`` bytes, and PSUM in whole 2 KiB banks starting at a bank boundary (matmul outputs
must sit inside one bank).
It runs on physical IR only (`pass_order.require_physical`: after ``tirx-dispatch`` and
``trn-lower-layout``), and a kernel that does not fit fails at the allocation it could not place,
in bytes per partition for SBUF and in banks for PSUM, with the buffers live at the peak
(`capacity.capacity_error`).

The kernel records its footprint: ``trn.sbuf_bytes`` and ``trn.psum_bytes`` (bytes per
partition). Allocations that already carry ``trn.addr`` keep it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tirx_mlir.backends.trn.capacity import CODE, HINT, TrnFailureReport
from tirx_mlir.backends.trn.memory import SBUF_ALIGNMENT, memory_spaces
from tirx_mlir.backends.trn.pass_order import require_physical
from tirx_mlir.backends.trn.target_tags import kernel_limits
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.memory_space import MemorySpace
from tirx_mlir.transforms.allocate import AllocatePass, FailureReport


@dataclass(frozen=True)
class TrnAllocatePass(AllocatePass):
    """Assign SBUF/PSUM byte offsets (``trn.addr``) reusing memory of dead buffers."""

    name = "trn-allocate"
    report: ClassVar[FailureReport] = TrnFailureReport(CODE, HINT)

    target: str | None = None
    align: int = SBUF_ALIGNMENT

    def memory_spaces(self, module: ModuleOp, kernel: KernelOp) -> tuple[MemorySpace, ...]:
        return memory_spaces(kernel_limits(kernel, self.target), self.align)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            require_physical(kernel, self.name)
        super().apply(ctx, op)
