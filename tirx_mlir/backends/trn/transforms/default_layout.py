"""``trn-default-layout``: give every on-chip buffer a Trainium layout and check user layouts.

    %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf>
      -> %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>

A ``trn.sbuf``/``trn.psum`` allocation without a layout gets TIRx's default (dim 0 on partitions,
split when larger than the partition count, other dims row-major on F; `layouts.default_layout`).
An explicit layout must use only P/F (Bank in PSUM), stay within the partitions, and be
injective; otherwise the pass fails at the allocation with the rule and a fix. The on-chip
buffers must fit in SBUF and PSUM where they are live together (`capacity.check_capacity`),
else the pass fails at the allocation that does not fit; and every ``tirx.reshape`` must be a
view (a merge of dims that are not one run in memory is an error at the reshape). A ``global``
(HBM) parameter or allocation keeps its layout, which says how the logical tensor lies in HBM
(`tirx_mlir.dialects.tirx.global_layout`); one that is not one stride per dim on ``m`` fails
here, at the kernel (naming the parameter) or at the allocation.

With a ``target`` option the pass also binds the kernels to that target (their ``target``
property), as the first pass of the ``trn`` pipeline: every later pass and the nki verifiers then
read the same limits.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tirx_mlir.backends.trn.capacity import check_capacity
from tirx_mlir.backends.trn.layout.layouts import TrnLayoutError, check_trn_layout
from tirx_mlir.backends.trn.memory import is_on_chip
from tirx_mlir.backends.trn.target_tags import kernel_limits
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.access import NotAView, resolve_access
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, ReshapeOp, allocs, replace_alloc
from tirx_mlir.dialects.tirx.global_layout import global_placement
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels, param_name
from tirx_mlir.target.target import bind_target
from tirx_mlir.dialects.tirx.layout import LayoutError

HBM_LAYOUT_HINT = ("give the HBM tensor one stride per dim on the memory axis, e.g. "
                   "S[(128,512):(1,128)] (column-major); see docs/trn.md (HBM layouts)")


def check_hbm_layouts(kernel: KernelOp) -> None:
    """Every global parameter and allocation of ``kernel`` has a placement in HBM."""
    for i, arg in enumerate(kernel.body.block.args):
        assert isinstance(arg.type, BufferType)
        try:
            global_placement(arg.type)
        except LayoutError as err:
            raise PassError(f"parameter {param_name(kernel, i)} of @{kernel.kernel_name}: {err}",
                            kernel, code="TRN-LAYOUT", hint=HBM_LAYOUT_HINT) from None
    for alloc in allocs(kernel):
        btype = alloc.result.type
        assert isinstance(btype, BufferType)
        if is_on_chip(btype):
            continue
        try:
            global_placement(btype)
        except LayoutError as err:
            raise PassError(str(err), alloc, code="TRN-LAYOUT", hint=HBM_LAYOUT_HINT) from None


def check_views(kernel: KernelOp) -> None:
    """Every reshape of the kernel is a view (`access.resolve_access`): one that merges dims
    which are not one run in memory would need a copy, an error at the reshape."""
    for op in kernel.walk():
        if isinstance(op, ReshapeOp):
            try:
                resolve_access(op.result)
            except NotAView as err:
                raise PassError(str(err), op, code="TRN-LAYOUT") from None


@dataclass(frozen=True)
class TrnDefaultLayoutPass(ModulePass):
    """Default Trainium layouts for on-chip buffers; verify explicit ones."""

    name = "trn-default-layout"
    REPORTS_CHANGES = True  # the target it binds, each alloc it replaces (`replace_alloc`)

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if self.target is not None:
                bind_target(kernel, self.target)
            partitions = kernel_limits(kernel, self.target).partitions
            check_hbm_layouts(kernel)
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
                    new_type = btype.with_shape(btype.get_shape(), layout)
                    replace_alloc(alloc, AllocOp(new_type))
            check_views(kernel)
            check_capacity(kernel, kernel_limits(kernel, self.target))
