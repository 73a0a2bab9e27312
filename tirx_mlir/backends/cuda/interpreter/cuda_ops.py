"""``cuda`` ops of thread geometry, addresses, loads/stores and shared memory on lane values.

* ids: ``thread_idx``/``block_idx``/``block_dim``/``grid_dim``, the cluster ids, ``lane_id``,
  ``warp_id`` from the wave's geometry (wave.py);
* ``cuda.shared_alloc`` / ``cuda.dynamic_shared``: the buffer at the offset the executor laid
  out (memory.py), ``cuda.address``: a generic (i64) or shared-window (i32) byte address;
* ``cuda.load`` / ``cuda.store``: 1, 2 or 4 consecutive elements at the flat index, through the
  checked memory (bounds, alignment, observers), or of the lane's own local array
  (local_arrays.py); a store rounds to the buffer's element type.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda import ids, loads, shared
from tirx_mlir.backends.cuda.dialects.cuda.address import AddressOp
from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.local_arrays import LocalArray
from tirx_mlir.backends.cuda.interpreter.values import Deferred, lane_shape
from tirx_mlir.interpreter.runtime import convert

_DIM = {"x": 0, "y": 1, "z": 2}


def _dim(op) -> int:
    return _DIM[op.dim.data]


@lane_impl(ids.ThreadIdxOp)
def run_thread_idx(ctx, op, args):
    return (ctx.wave.thread_idx[:, _dim(op)].copy(),)


@lane_impl(ids.BlockIdxOp)
def run_block_idx(ctx, op, args):
    return (ctx.wave.block_idx[:, _dim(op)].copy(),)


@lane_impl(ids.BlockDimOp)
def run_block_dim(ctx, op, args):
    return (np.full(ctx.wave.L, ctx.wave.block_dim[_dim(op)], dtype=np.int64),)


@lane_impl(ids.GridDimOp)
def run_grid_dim(ctx, op, args):
    return (np.full(ctx.wave.L, ctx.wave.grid_dim[_dim(op)], dtype=np.int64),)


@lane_impl(ids.ClusterIdxOp)
def run_cluster_idx(ctx, op, args):
    return (ctx.wave.cluster_idx[:, _dim(op)].copy(),)


@lane_impl(ids.ClusterDimOp)
def run_cluster_dim(ctx, op, args):
    return (np.full(ctx.wave.L, ctx.wave.cluster_dim[_dim(op)], dtype=np.int64),)


@lane_impl(ids.ClusterBlockIdxOp)
def run_cluster_block_idx(ctx, op, args):
    return (ctx.wave.cluster_block_idx[:, _dim(op)].copy(),)


@lane_impl(ids.ClusterBlockRankOp)
def run_cluster_block_rank(ctx, op, args):
    return (ctx.wave.cluster_rank.copy(),)


@lane_impl(ids.LaneIdOp)
def run_lane_id(ctx, op, args):
    return (ctx.wave.lane.copy(),)


@lane_impl(ids.WarpIdOp)
def run_warp_id(ctx, op, args):
    return (ctx.wave.warp_in_cta.copy(),)


@lane_impl(shared.SharedAllocOp, shared.DynamicSharedOp)
def run_shared(ctx, op, args):
    return (ctx.engine.shared_buffers[op],)


@lane_impl(AddressOp)
def run_address(ctx, op: AddressOp, args):
    buf, index = args
    base = buf.address(ctx.wave.pe)
    addr = base + index.astype(np.int64, copy=False) * buf.dtype.itemsize
    if buf.space == memory.GLOBAL:
        return (addr,)
    if op.shared_window:
        return (addr.astype(np.int32),)
    return (addr + memory.SHARED_GENERIC,)


def _check_index(ctx, buf, index: np.ndarray, count: int) -> None:
    bad = ctx.mask & ((index < 0) | (index + count > buf.numel))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ctx.error(f"index {int(index[i])} is out of bounds of {buf.name or 'the buffer'} "
                        f"({buf.numel} elements, an access of {count})", bad,
                        hint="check the index arithmetic against the buffer's shape")


def element_addresses(ctx, buf, index: np.ndarray, count: int) -> tuple[str, np.ndarray]:
    """(memory space, per-lane byte address) of ``buf[index]`` after the index check."""
    _check_index(ctx, buf, index, count)
    addr = buf.address(ctx.wave.pe) + index.astype(np.int64, copy=False) * buf.dtype.itemsize
    return (memory.GLOBAL if buf.space == memory.GLOBAL else memory.SHARED), addr


@lane_impl(loads.LoadOp)
def run_load(ctx, op, args):
    buf, index = args
    shape = lane_shape(op.result.type)
    count = shape[0] if shape else 1
    if isinstance(buf, LocalArray):
        _check_index(ctx, buf, index, count)
        held = buf.deferred(ctx, index, count)
        if held is not None:  # still in flight: the reader decides (local_arrays.py)
            return (held,)
        values = buf.load(ctx, index, count)
        return (values if shape else values[:, 0],)
    space, addr = element_addresses(ctx, buf, index, count)
    values = ctx.mem.load(ctx, space, addr, buf.dtype, count)
    return (values if shape else values[:, 0],)


@lane_impl(loads.StoreOp)
def run_store(ctx, op, args):
    buf, index, value = args
    if type(value) is Deferred:
        if isinstance(buf, LocalArray) and not value.ready and value.value.ndim == 1:
            _check_index(ctx, buf, index, 1)
            buf.store_deferred(ctx, index, value)
            return ()
        value = ctx.engine._read(value, op, ctx)  # noqa: SLF001 - delivered, or its error
    count = value.shape[1] if value.ndim > 1 else 1
    data = convert(value, buf.dtype).reshape(ctx.wave.L, count)
    if isinstance(buf, LocalArray):
        _check_index(ctx, buf, index, count)
        buf.store(ctx, index, data)
        return ()
    space, addr = element_addresses(ctx, buf, index, count)
    ctx.mem.store(ctx, space, addr, data)
    return ()


run_store.takes_deferred = True  # type: ignore[attr-defined]
"""A register tile may hold an accumulator still in flight (local_arrays.py)."""


@lane_impl(loads.FenceOp)
def run_fence(ctx, op, args):
    # Ops run in program order for every lane and memory is coherent: a fence orders nothing
    # the interpreter would reorder. It is an event for threads polling on memory.
    ctx.event()
    return ()
