"""SIMT semantics of the core ops a dispatched kernel still holds before the cuda pipeline's
later passes: the scope ids (``tirx.cta_id``, ``tirx.warp_id``, ...; lowered by
``cuda-lower-scope-ids``), shared tiles (``tirx.alloc`` in shared: a static array of the
executor's arena, addressed physically: local_arrays.py) and tile-level views and register tiles (erased by
``cuda-lower-layout``; nothing reads them). Each is the CUDA id its
lowering gives (backends/cuda/transforms/lower_scope_ids.py): ``cta_id`` = ``blockIdx``,
``thread_id`` = ``threadIdx``, and lane / warp / warpgroup ids from the thread's linear index
in its block (1-D blocks; TIRx's binding)."""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.dialects.tirx import kernel as K
from tirx_mlir.dialects.tirx.buffer_ops import ReshapeOp, SliceOp, TransposeOp


@lane_impl(K.CtaIdOp)
def run_cta_id(ctx, op, args):
    return (ctx.wave.block_idx[:, op.dim_index].copy(),)


@lane_impl(K.ThreadIdOp)
def run_thread_id(ctx, op, args):
    return (ctx.wave.thread_idx[:, op.dim_index].copy(),)


@lane_impl(K.ClusterIdOp)
def run_cluster_id(ctx, op, args):
    return (ctx.wave.cluster_idx[:, op.dim_index].copy(),)


@lane_impl(K.CtaIdInClusterOp)
def run_cta_id_in_cluster(ctx, op, args):
    return (ctx.wave.cluster_block_idx[:, op.dim_index].copy(),)


_FROM_TID = {K.LaneIdOp: (1, 32), K.WarpIdOp: (32, None), K.WarpgroupIdOp: (128, None),
             K.WarpIdInWgOp: (32, 4), K.ThreadIdInWgOp: (1, 128)}


@lane_impl(*_FROM_TID)
def run_thread_scope_id(ctx, op, args):
    div, mod = _FROM_TID[type(op)]
    v = ctx.wave.tid // div
    return ((v % mod if mod else v).astype(np.int64),)


# --- tile-level buffers a dispatched kernel still holds (until cuda-lower-layout) ---------------


class TileView:
    """The value of a view (``tirx.slice``/``transpose``/``reshape``) or of a logical register
    tile: after dispatch no CUDA-level op reads them (they address the underlying buffer or
    the tile's register array); one that does fails at that op's operand check."""

    def __repr__(self) -> str:
        return "<tile-level view>"


@lane_impl(SliceOp, TransposeOp, ReshapeOp)
def run_view(ctx, op, args):
    return (TileView(),)
