"""Default layouts of the tiles TMA copies and wgmma GEMMs use (rules of the default-layout
pass, transforms/default_layout.py): the layout a use *needs*, given to an alloc the user
wrote without one.

* A ``shared`` alloc ``[..., rows, cols]`` that a TMA copy writes or reads (``copy_async``
  forced to ``tma_auto`` or ``tma_explicit``: a load's destination, a store's source) or a
  ``gemm_async`` reads as A or B gets `swizzle.swizzled_layout` with the
  widest swizzle its contiguous columns allow (`swizzle.choose_swizzle`: 128B for 64 f16
  columns or any multiple), which TMA boxes write and wgmma descriptors read bank-conflict-free.
  A tile that does not split into 8-row patterns keeps the row-major default.
* A ``local`` alloc that a ``gemm_async`` writes as C, or reads as A (the rs form), gets the
  wgmma accumulator layout (`fragments_wgmma.accumulator_layout`), split over the consumer
  warpgroups at cta scope.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.layout import fragments_wgmma as fw
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.backends.cuda.layout.roles import consumer_warpgroups
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import NotAView, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout
from tirx_mlir.dialects.tirx.tile_base import TileOp

TMA_VARIANTS = ("tma_auto", "tma_explicit")


def tile_uses(kernel: KernelOp, buffer: SSAValue) -> list[tuple[TileOp, str]]:
    """(tile op, operand name) of every tile-op operand of ``kernel`` that views ``buffer``."""
    found = []
    for op in kernel.walk():
        if not isinstance(op, TileOp):
            continue
        for name, value in op.named_operands().items():
            if not isinstance(value.type, BufferType):
                continue
            try:
                base = resolve_access(value).buffer
            except NotAView:
                continue
            if base is buffer:
                found.append((op, name))
    return found


def is_tma_copy(op: TileOp) -> bool:
    """A copy_async forced to a TMA variant (unforced loads take cp.async first)."""
    return isinstance(op, T.CopyAsyncOp) and op.dispatch is not None and \
        op.dispatch.data in TMA_VARIANTS


def _needs_swizzle(op: TileOp, name: str) -> bool:
    if isinstance(op, T.CopyAsyncOp):
        return is_tma_copy(op) and op.named_operands()[name].type.scope_name in SHARED_SCOPES
    return isinstance(op, T.GemmAsyncOp) and name in ("a", "b")


def shared_tile_layout(kernel: KernelOp, buffer: SSAValue) -> TileLayout | None:
    """The swizzled layout a shared ``buffer`` (a ``tirx.alloc`` result) needs, or None."""
    btype = buffer.type
    assert isinstance(btype, BufferType)
    if btype.rank < 2 or not any(_needs_swizzle(op, n) for op, n in tile_uses(kernel, buffer)):
        return None
    elem = dtypes.bit_width(btype.element_type) // 8
    shape = btype.get_shape()
    try:
        return sw.swizzled_layout(shape, elem, sw.choose_swizzle(elem, shape[-1]))
    except LayoutError:
        return None


def accumulator_tile_layout(kernel: KernelOp, buffer: SSAValue) -> TileLayout | None:
    """The wgmma register layout a local ``buffer`` that gemm_async writes as C or reads as an
    rs-form A needs (the same one: the A fragments of a K step are an m64n16 accumulator's),
    or None."""
    btype = buffer.type
    assert isinstance(btype, BufferType)
    writers = [op for op, n in tile_uses(kernel, buffer)
               if isinstance(op, T.GemmAsyncOp) and n in ("c", "a")]
    if not writers or btype.rank != 2:
        return None
    scopes = {op.exec_scope for op in writers}
    groups = None if scopes == {ExecScope.WARPGROUP} else consumer_warpgroups(kernel)
    try:
        return fw.accumulator_layout(*btype.get_shape(), groups)
    except ValueError:
        return None


def wgmma_accumulator_rule(alloc, first_use, name, kernel) -> TileLayout | None:
    """The default-layout pass's rule (transforms/default_layout.py ``LAYOUT_RULES``): any use
    of the tile decides, not only the first (an accumulator is usually zeroed first)."""
    return accumulator_tile_layout(kernel, alloc.result)
