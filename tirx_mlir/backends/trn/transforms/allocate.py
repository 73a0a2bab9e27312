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

The kernel records its footprint: ``trn.sbuf_bytes`` and ``trn.psum_bytes`` (bytes per
partition). Allocations that already carry ``trn.addr`` keep it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import ModuleOp

from tirx_mlir.backends.trn.memory import SBUF_ALIGNMENT, memory_spaces
from tirx_mlir.backends.trn.target_tags import kernel_limits
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.memory_space import MemorySpace
from tirx_mlir.transforms.allocate import AllocatePass, FailureReport


@dataclass(frozen=True)
class TrnAllocatePass(AllocatePass):
    """Assign SBUF/PSUM byte offsets (``trn.addr``) reusing memory of dead buffers."""

    name = "trn-allocate"
    report: ClassVar[FailureReport] = FailureReport(
        "TRN-ALLOC", "use smaller tiles, shorten buffer lifetimes, or loop over blocks")

    target: str | None = None
    align: int = SBUF_ALIGNMENT

    def memory_spaces(self, module: ModuleOp, kernel: KernelOp) -> tuple[MemorySpace, ...]:
        return memory_spaces(kernel_limits(kernel, self.target), self.align)

    def check(self, alloc: AllocOp, btype: BufferType, space: MemorySpace) -> None:
        if btype.get_layout() is not None or btype.rank != 2:
            raise PassError(f"buffer {btype} is not a physical [P, F] tile; run "
                            f"trn-lower-layout before trn-allocate", alloc)
