"""Broadcast across partitions: a ``[1, N]`` row used with (or copied into) a ``[P, N]`` tile.

Trainium engines work partition by partition; no Vector/Scalar instruction reads another
partition's data, so a row that every partition needs must first be put on every partition.
A hand-written NKI kernel does that with one of two instructions, and so does this backend:

* the row is in HBM: one DMA that reads it with a stride-0 partition access pattern
  (``nki.load %tile[P, N], %row[1, N]``, printed as ``.ap(pattern=[[0, P], [1, N]])`` /
  ``nl.load(row[0 * i_p + ..., i_f])``); this is the `copy` variant's plain DMA path;
* the row is on chip (SBUF): a ones-vector matmul on TensorE, ``ones[1, P]^T @ row[1, N]``
  (K = 1) into PSUM, then a copy out of PSUM; the ``partition_broadcast`` copy variant below
  emits it as a ``tirx.gemm`` and a ``tirx.copy`` (so the gemm lowering tiles N by PSUM banks).
  This is the cost rule: TensorE when the row is already on chip (TensorE is idle in
  elementwise code, and the alternative is a round trip through HBM: two DMAs of ~2 us fixed
  cost each), DMA when it is in HBM. A row TensorE cannot multiply (integer dtypes), or one
  wider than PSUM for a new tile, goes out to an HBM scratch row and comes back by the
  broadcasting DMA.

An elementwise op with such an operand (`plan.plan_tiles` with ``broadcast``) first broadcasts it
once into a scratch tile of the instruction's partition count, outside the instruction loops,
and reads that tile in every instruction: 1000 rows of ``x * gamma`` cost one broadcast, not
eight.
"""

from __future__ import annotations

import math
from typing import Sequence

from xdsl.builder import Builder
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dialects.nki.checks import TENSOR_ENGINE_DTYPES
from tirx_mlir.backends.trn.dispatch.scratch import f32_const, local_tile
from tirx_mlir.backends.trn.memory import HBM, ON_CHIP, PSUM, SBUF
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dialects.tirx.access import guard_like, is_guarded
from tirx_mlir.dispatch import fail
from tirx_mlir.dispatch.builders import (align, alloc, elem_type, insert_tile_op, reshape,
                                         scope_of, shape_of)

ONES_COLUMNS = 128
"""The shared ones row is [1, 128]: one matmul writes at most 128 output partitions."""


def broadcasts_across_partitions(src_shape: Sequence[int], dst_shape: Sequence[int]) -> bool:
    """``src`` aligned to ``dst`` is 1 on dim 0 (where dst has rows) and equal elsewhere: a row
    every partition of dst needs (``[1, N]`` with ``[P, N]``, ``[N]`` with ``[P, N]``)."""
    try:
        aligned = align(src_shape, dst_shape, "operand")
    except rules.RuleError:
        return False
    return len(dst_shape) >= 2 and dst_shape[0] > 1 and aligned[0] == 1 and \
        tuple(aligned[1:]) == tuple(dst_shape[1:])


PSUM_F32_COLUMNS = 4096
"""f32 columns of PSUM per partition (8 banks of 2 KiB): the widest row broadcast on TensorE
into a tile that the broadcast itself allocates."""


def _ones_row(ctx, element_type) -> SSAValue:
    """The kernel's shared ones row ``[1, 128]`` of ``element_type``, set once at entry."""
    def init(builder: Builder, buf: SSAValue) -> None:
        builder.insert(nki.MemsetOp(buf, f32_const(builder, 1.0)))

    ones_type = BufferType([1, ONES_COLUMNS], element_type, SBUF)
    return ctx.alloc_private(("ones_row", dtypes.type_name(element_type)), ones_type, init)


def _on_tensor_engine(row: SSAValue, width: int, into_new_tile: bool) -> bool:
    """The cost rule for a row on chip: TensorE (ones-matmul) unless it cannot multiply the
    dtype or the row is wider than PSUM holds for a new tile; then the DMA through HBM."""
    return dtypes.type_name(elem_type(row)) in TENSOR_ENGINE_DTYPES and \
        (not into_new_tile or width <= PSUM_F32_COLUMNS)


def broadcast_row(ctx, builder: Builder, row: SSAValue, rows: int, origin: TileOp,
                  dst: SSAValue | None = None) -> SSAValue:
    """Put the SBUF row ``row`` (``[1, W]``) on ``rows`` partitions: into ``dst`` (``[rows, W]``)
    or, when None, into a new SBUF tile (``rows <= 128``) that is returned.

    TensorE: per block of 128 rows, ``acc[p, W] = ones[1, p]^T @ row`` (a ``tirx.gemm`` into a
    PSUM tile), then a copy to the destination. HBM: the row is stored to a scratch HBM row and
    loaded back by one broadcasting DMA per block. A new tile is allocated after the last read of
    the row, so the allocator may give it the row's memory."""
    width = shape_of(row)[1]
    if scope_of(row) != SBUF:
        fail(f"the row is in {scope_of(row)}; a broadcast reads {SBUF}: copy it there first")
    blocks = [(r0, min(ONES_COLUMNS, rows - r0)) for r0 in range(0, rows, ONES_COLUMNS)]
    if _on_tensor_engine(row, width, dst is None):
        ones = _ones_row(ctx, elem_type(row))
        accs = []
        for _, p in blocks:
            acc = local_tile(builder, [p, width], f32, PSUM)
            ones_p = ones if p == ONES_COLUMNS else \
                builder.insert(SliceOp(ones, [0, 0], [1, p])).result
            insert_tile_op(builder, T.GemmOp(acc, ones_p, row, None, transpose_a=True), origin)
            accs.append(acc)
        dst = dst if dst is not None else local_tile(builder, [rows, width], elem_type(row))
        for (r0, p), acc in zip(blocks, accs):  # a guarded dst: its guarded part of acc
            target = _rows(builder, dst, r0, p)
            insert_tile_op(builder, T.CopyOp(target, guard_like(builder, acc, target)), origin)
        return dst
    if dst is not None and is_guarded(dst):
        fail(f"a {dtypes.type_name(elem_type(row))} row into a guarded destination: the DMA "
             f"broadcast takes static extents; copy the row into a {SBUF} tile of the "
             f"destination's maximum shape, then copy its guarded part")
    if dst is not None and scope_of(dst) != SBUF:
        fail(f"a {dtypes.type_name(elem_type(row))} row is broadcast by DMA, which writes "
             f"{SBUF} only; give the destination {SBUF}")
    scratch = alloc(builder, [1, width], elem_type(row), HBM)
    builder.insert(nki.StoreOp(scratch, row))
    dst = dst if dst is not None else local_tile(builder, [rows, width], elem_type(row))
    for r0, p in blocks:
        builder.insert(nki.LoadOp(_rows(builder, dst, r0, p), scratch))
    return dst


def _rows(builder: Builder, tile: SSAValue, r0: int, p: int) -> SSAValue:
    rows, width = shape_of(tile)
    if r0 == 0 and p == rows:
        return tile
    return builder.insert(SliceOp(tile, [r0, 0], [p, width])).result


# --- the copy variant for an on-chip row --------------------------------------------------------


def on_chip_row(op: TileOp, ctx) -> tuple[bool, str]:
    """Predicate of the ``partition_broadcast`` copy variant (registered in `copy`)."""
    if scope_of(op.src) not in ON_CHIP or scope_of(op.dst) not in ON_CHIP:
        return False, "not an on-chip to on-chip copy (a row in HBM is broadcast by the DMA)"
    if not broadcasts_across_partitions(shape_of(op.src), shape_of(op.dst)):
        return False, "the source does not broadcast across the destination's partitions"
    return True, ""


def broadcast_on_chip(op: TileOp, ctx) -> None:
    """``tirx.copy dst[P, ...], row[1, ...]`` with the row on chip: `broadcast_row`."""
    b = ctx.builder
    dst_shape = shape_of(op.dst)
    width = math.prod(dst_shape[1:])
    broadcast_row(ctx, b, reshape(b, op.src, [1, width]), dst_shape[0], op,
                  dst=reshape(b, op.dst, [dst_shape[0], width]))
