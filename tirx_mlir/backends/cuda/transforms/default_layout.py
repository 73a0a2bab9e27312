"""``cuda-default-layout``: give every register tile a layout that spreads it over its threads.

    %acc = tirx.alloc : !tirx.buffer<64x128xf32, local>          (first used by a cta-scope op,
      -> !tirx.buffer<64x128xf32, local, S[(16,128,4):(4,1@tx,1)]>           128 threads)

A ``local`` allocation without a layout gets one from the first tile op that uses it, by rules
tried in order (`LAYOUT_RULES`): a use that needs a particular register image (a gemm accumulator:
the mma fragments; a reduction's destination: the source's rows in the threads that reduce them,
`layout.reduction_layout`; a tile a reduction reads, where the default spread would number its
threads by digits no power of two: the reduction's own spread) states it there (reduction
destinations are laid out after the other tiles, so a source allocated after its destination has
its layout first); otherwise the scope's default spread
(`layout.defaults.default_register_layout`: TIRx's ``[outer, threads, vec]`` partition over the
scope's threads). An explicit layout is checked to be a register layout (thread axes and ``m``
only, splittable at the tile's dims: `RegisterPartition`), else the pass fails at the allocation.
Shared and global buffers keep their layouts (row-major when none), except a shared tile that a
TMA copy writes or a wgmma reads, which gets the swizzled layout that use needs
(`layout.async_defaults`). A swizzled shared tile, default or explicit, is aligned to its
swizzle's pattern (`ALIGN_ATTR`).

With a ``target`` option the pass binds the kernels to that target, as the first pass of the
``cuda`` pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xdsl.dialects.builtin import IntegerAttr, i64

from tirx_mlir.backends.cuda.dialects.cuda.shared import ALIGN_ATTR, TILE_ALIGN
from tirx_mlir.backends.cuda.layout.swizzle import tile_alignment
from tirx_mlir.backends.cuda.layout.async_defaults import shared_tile_layout, wgmma_accumulator_rule
from tirx_mlir.backends.cuda.layout.defaults import default_register_layout
from tirx_mlir.backends.cuda.layout.fragments import gemm_accumulator_rule
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition
from tirx_mlir.backends.cuda.layout.reduction_layout import (reduction_destination_layout,
                                                              reduction_destinations,
                                                              reduction_source_layout)
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED_SCOPES
from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, allocs, replace_alloc
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.target.target import bind_target

LayoutRule = Callable[[AllocOp, TileOp, str, KernelOp], "TileLayout | None"]
"""``rule(alloc, first_use, operand_name, kernel)`` -> the layout that use needs, or None."""

LAYOUT_RULES: list[LayoutRule] = [wgmma_accumulator_rule, gemm_accumulator_rule,
                                   reduction_destination_layout, reduction_source_layout]
"""Use-specific register layouts, tried in order before the scope's default spread. The
tensor-core variants add theirs here (a gemm accumulator gets the mma fragment layout)."""


def first_use(alloc: AllocOp, kernel: KernelOp) -> tuple[TileOp, str] | None:
    """The first tile op (program order) with an operand viewing ``alloc``, and that operand's
    name."""
    for op in kernel.walk():
        if not isinstance(op, TileOp):
            continue
        for name, value in op.named_operands().items():
            if isinstance(value.type, BufferType) and resolve_access(value).buffer is alloc.result:
                return op, name
    return None


def register_layout_for(alloc: AllocOp, kernel: KernelOp) -> TileLayout | None:
    btype = alloc.result.type
    assert isinstance(btype, BufferType)
    use = first_use(alloc, kernel)
    if use is None:
        return None
    op, name = use
    for rule in LAYOUT_RULES:
        layout = rule(alloc, op, name, kernel)
        if layout is not None:
            return layout
    return default_register_layout(btype.get_shape(), (dtypes.bit_width(btype.element_type) // 8),
                                   op.exec_scope, kernel.num_threads())


def _check(alloc: AllocOp, layout: TileLayout) -> None:
    btype = alloc.result.type
    assert isinstance(btype, BufferType)
    try:
        RegisterPartition(layout, btype.get_shape())
    except PartitionError as err:
        raise PassError(f"register tile {btype}: {err}", alloc, code="CUDA-LAYOUT",
                        hint="a register layout places elements on thread axes (tx, laneid, "
                             "warpid, ...) and registers (m); see docs/cuda_tile.md") from None


def _align_swizzled(alloc: AllocOp, btype: BufferType) -> None:
    """An explicitly swizzled shared tile is aligned to its swizzle's pattern, as a default one
    is: the generic accesses swizzle its element offsets, TMA and wgmma the address bits, which
    agree only when the tile starts on a whole pattern (1024 bytes for 128B)."""
    layout = btype.get_layout()
    if layout is None or layout.swizzle is None:
        return
    need = tile_alignment(layout, dtypes.bit_width(btype.element_type) // 8, TILE_ALIGN)
    have = alloc.attributes.get(ALIGN_ATTR)
    if not isinstance(have, IntegerAttr) or have.value.data < need:
        alloc.attributes[ALIGN_ATTR] = IntegerAttr(need, i64)
        current_changes().changed(alloc, inside=False)


@dataclass(frozen=True)
class CudaDefaultLayoutPass(ModulePass):
    """Default register layouts for ``local`` tiles; check explicit ones."""

    name = "cuda-default-layout"
    REPORTS_CHANGES = True  # the target it binds, each alloc it replaces (`replace_alloc`)

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if self.target is not None:
                bind_target(kernel, self.target)
            written = reduction_destinations(kernel)  # after their sources (stable order)
            for alloc in sorted(allocs(kernel), key=lambda a: a.result in written):
                btype = alloc.result.type
                assert isinstance(btype, BufferType)
                if btype.scope_name in SHARED_SCOPES and btype.get_layout() is not None:
                    _align_swizzled(alloc, btype)
                    continue
                if btype.scope_name in SHARED_SCOPES:
                    # a shared tile a TMA copy writes or wgmma reads: the swizzle its use needs
                    layout = shared_tile_layout(kernel, alloc.result)
                    if layout is not None:
                        new = AllocOp(btype.with_shape(btype.get_shape(), layout))
                        replace_alloc(alloc, new)
                        new.attributes[ALIGN_ATTR] = IntegerAttr(tile_alignment(
                            layout, dtypes.bit_width(btype.element_type) // 8, TILE_ALIGN), i64)
                    continue
                if btype.scope_name != LOCAL:
                    continue
                layout = btype.get_layout() or register_layout_for(alloc, kernel)
                if layout is None:
                    continue
                _check(alloc, layout)
                if btype.get_layout() is None:
                    replace_alloc(alloc, AllocOp(BufferType(
                        btype.get_shape(), btype.element_type, btype.scope_name, layout)))
