"""``cuda-lower-layout``: after dispatch, only physical buffers remain.

* A logical register tile (``tirx.alloc`` in ``local`` with a register layout: every one has
  after cuda-default-layout; the physical arrays dispatch creates have none) is no longer
  read after dispatch: the variants use its per-thread register array
  (`dispatch.common.registers`). It is erased with its dead views; one still read by an op
  is an error naming the op (something bypassed dispatch).
* A shared ``tirx.alloc`` becomes the 1-D static shared array of its physical footprint (the
  span of its layout on ``m``: the variants already index it physically), as TIRx's
  ``LayoutApplier::Flatten`` does, with its alignment in ``cuda.align`` (`shared.ALIGN_ATTR`):
  128 bytes, a swizzled tile its swizzle atom (``2^(M+B+S)`` elements' bytes), so vector
  accesses, ldmatrix, TMA and wgmma descriptors see aligned rows; ``cuda-allocate-shared``
  then places it in the dynamic arena. A global one with a layout becomes the 1-D array of its
  footprint. Dead views are erased first.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tirx_mlir.backends.cuda.dialects.cuda.shared import ALIGN_ATTR, TILE_ALIGN
from tirx_mlir.backends.cuda.layout.swizzle import tile_alignment
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED, SHARED_SCOPES
from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import (VIEW_OPS, AllocOp, allocs, erase_dead_views,
                                               replace_alloc)
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dialects.tirx.kernel import kernels


def _reader(value: SSAValue) -> Operation | None:
    for use in value.uses:
        return use.operation
    return None


def _to_shared_array(alloc: AllocOp, btype: BufferType, layout: TileLayout | None) -> None:
    erase_dead_views(alloc.result)
    if any(isinstance(u.operation, VIEW_OPS) for u in alloc.result.uses):
        reader = next(u.operation for u in alloc.result.uses if isinstance(u.operation, VIEW_OPS))
        raise PassError(f"{reader.name} of a shared tile is still read after tirx-dispatch",
                        reader, code="CUDA-PASS-ORDER",
                        hint="run tirx-dispatch before cuda-lower-layout")
    span = layout.span("m") if layout is not None else btype.numel
    align = tile_alignment(layout, dtypes.bit_width(btype.element_type) // 8, TILE_ALIGN)
    new = AllocOp(BufferType([span], btype.element_type, SHARED))
    replace_alloc(alloc, new)
    new.attributes[ALIGN_ATTR] = IntegerAttr(align, i64)


@dataclass(frozen=True)
class CudaLowerLayoutPass(ModulePass):
    """Erase logical register tiles, flatten laid-out memory buffers to their footprint."""

    name = "cuda-lower-layout"
    REPORTS_CHANGES = True  # each alloc replaced or erased (`erase_dead_views` reports views)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        changes = current_changes()
        for kernel in kernels(op):
            for alloc in allocs(kernel):
                btype = alloc.result.type
                assert isinstance(btype, BufferType)
                layout = btype.get_layout()
                if btype.scope_name in SHARED_SCOPES or layout is not None:
                    changes.removed(alloc)
                if btype.scope_name in SHARED_SCOPES:
                    _to_shared_array(alloc, btype, layout)
                    continue
                if layout is None:
                    continue
                erase_dead_views(alloc.result)
                if btype.scope_name == LOCAL:
                    reader = _reader(alloc.result)
                    if reader is not None:
                        raise PassError(f"{reader.name} reads the register tile {btype} itself; "
                                        f"after tirx-dispatch only its register array is used",
                                        reader, code="CUDA-PASS-ORDER",
                                        hint="run tirx-dispatch before cuda-lower-layout")
                    alloc.detach()
                    alloc.erase()
                    continue
                flat = BufferType([layout.span("m")], btype.element_type, btype.scope_name)
                replace_alloc(alloc, AllocOp(flat))
