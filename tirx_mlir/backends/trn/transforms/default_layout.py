"""``trn-default-layout``: give every on-chip buffer a Trainium layout and check user layouts.

    %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf>
      -> %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>

A ``trn.sbuf``/``trn.psum`` allocation without a layout gets TIRx's default (dim 0 on partitions,
split when larger than the partition count, other dims row-major on F; `layouts.default_layout`).
An explicit layout must use only P/F (Bank in PSUM), stay within the partitions, and be
injective; otherwise the pass fails at the allocation with the rule and a fix.

With a ``target`` option the pass also binds the kernels to that target (their ``target``
property), as the first pass of the ``trn`` pipeline: every later pass and the nki verifiers then
read the same limits.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tirx_mlir.backends.trn.layout.layouts import TrnLayoutError, check_trn_layout
from tirx_mlir.backends.trn.memory import is_on_chip
from tirx_mlir.backends.trn.target_tags import kernel_limits
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType, TargetAttr
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, allocs, replace_alloc
from tirx_mlir.dialects.tirx.kernel import kernels


@dataclass(frozen=True)
class TrnDefaultLayoutPass(ModulePass):
    """Default Trainium layouts for on-chip buffers; verify explicit ones."""

    name = "trn-default-layout"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if self.target is not None:
                kernel.properties["target"] = TargetAttr(self.target)
            partitions = kernel_limits(kernel, self.target).partitions
            for alloc in allocs(kernel):
                btype = alloc.result.type
                assert isinstance(btype, BufferType)
                if not is_on_chip(btype):
                    continue
                try:
                    layout = check_trn_layout(btype, partitions)
                except TrnLayoutError as err:
                    raise PassError(str(err), alloc, code="TRN-LAYOUT",
                                    hint="see docs/trn.md (Layouts)") from None
                if btype.get_layout() is None:
                    new_type = BufferType(btype.get_shape(), btype.element_type,
                                          btype.scope_name, layout)
                    replace_alloc(alloc, AllocOp(new_type))
