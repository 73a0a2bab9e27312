"""The reduction plan: thread digits as bits of threadIdx.x, which bits a reduction shuffles,
exchanges through shared memory or leaves to replicas, and the spread of a memory tile."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.layout.reduction_plan import (Field, PlanError, ReductionPlan,
                                                             memory_spread, thread_fields)
from tirx_mlir.backends.cuda.layout.partition import RegisterPartition
from tirx_mlir.dialects.tirx.layout import TileLayout


def _plan(layout: str, shape, axes, nbits=7, block_bits=7):
    part = RegisterPartition(TileLayout.parse(layout), shape)
    return ReductionPlan(part, axes, nbits, block_bits)


def test_thread_axes_become_bits_of_threadidx():
    part = RegisterPartition(TileLayout.parse("S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]"),
                             (32, 256))
    assert sorted(thread_fields(part, 7), key=lambda f: f.lo) == [
        Field(0, 5, 1, 4), Field(5, 2, 0, 8)]


def test_lanes_along_a_row_shuffle_warps_on_rows_do_not():
    plan = _plan("S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]", (32, 256), (1,))
    assert plan.lane_bits == [0, 1, 2, 3, 4] and plan.warp_bits == [] and plan.partials == 1
    assert len(plan.keys) == 8 and all(len(s) == 8 for s in plan.keys.values())
    assert plan.writer_mask == 31


def test_a_row_across_warps_goes_through_partials():
    plan = _plan("S[(16,128,4):(4,1@tx,1)]", (32, 256), (1,))
    assert plan.lane_bits == [0, 1, 2, 3, 4] and plan.warp_bits == [5]
    assert plan.partials == 2 and plan.warp_runs() == [(5, 1)]


def test_unused_bits_are_replicas():
    plan = _plan("S[(64,32):(32,1@laneid)]", (64, 32), (1,), nbits=7)
    assert plan.replica_bits == [5, 6] and plan.writer_mask == 0b1111111


def test_direct_keys_when_the_destination_sits_in_the_same_threads():
    plan = _plan("S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]", (32, 256), (1,))
    tx = np.arange(128)
    # destination S[(4,8):(1@warpid,1)] + R[32:1@laneid]: register j holds row 8 * warp + j
    same = (tx // 32)[:, None] * 8 + np.arange(8)[None, :]
    assert plan.direct_keys(same) == list(range(8))
    # row-major over tx (one row per thread) needs other threads' rows
    assert plan.direct_keys((tx % 32)[:, None]) is None


def test_two_digits_on_one_bit_are_refused():
    with pytest.raises(PlanError, match="same bit"):
        _plan("S[(2,2,32):(1@laneid,1@tx,1)]", (2, 2, 32), (2,))


@pytest.mark.parametrize("shape,axes,layout", [
    ((32, 256), (1,), "S[(8,4,8,32):(8,32@tx,1,1@tx)]"),       # lanes on the row, warps on rows
    ((128, 256), (0,), "S[(128,2,4,32):(2,1,32@tx,1@tx)]"),    # lanes and warps on columns
    ((128, 256), (0, 1), "S[(128,2,4,32):(2,1,32@tx,1@tx)]"),  # every bit reduced
    ((256, 8), (0,), "S[(16,16,8):(1,8@tx,1@tx)]"),            # 8 columns, then rows in lanes
])
def test_memory_spread(shape, axes, layout):
    assert str(memory_spread(shape, axes, 7, "tx")) == layout


def test_memory_spread_vectors_and_odd_extents():
    assert str(memory_spread((32, 256), (1,), 7, "tx", vec=4)) == \
        "S[(8,4,2,32,4):(8,32@tx,4,1@tx,1)]"
    # 3 rows of 12: two lane bits fit 12, the rest of the threads are replicas
    spread = memory_spread((3, 12), (1,), 7, "tx")
    plan = ReductionPlan(RegisterPartition(spread, (3, 12)), (1,), 7, 7)
    assert plan.lane_bits == [0, 1] and plan.replica_bits == [2, 3, 4, 5, 6]
