"""defaults.spread_layout: a round of the ``[outer, threads, vec]`` spread keeps to the tile's
rows (found by tests/property/cuda_valid_campaign.py: 32 threads of 4-element vectors over
rows of 12 straddled them, and cuda-default-layout refused a valid [32, 12] tile)."""

from __future__ import annotations

import numpy as np

import tirx_mlir  # noqa: F401
from tirx_testing.cuda_every_stage import check_every_stage
from tirx_mlir.backends.cuda.layout.defaults import spread_layout
from tirx_mlir.backends.cuda.layout.partition import RegisterPartition, splits_at_dims


def test_a_round_that_would_straddle_rows_takes_fewer_threads():
    layout = spread_layout((32, 12), "tx", 32, 4)
    assert str(layout) == "S[(4,24,4):(4,1@tx,1)]"  # 24 threads: 8 whole rows a round
    part = RegisterPartition(layout, (32, 12))
    assert part.threads == {"tx": 24} and part.nregs == 16


def test_spreads_that_split_at_the_dims_are_kept():
    assert str(spread_layout((128, 128), "tx", 128, 4)) == "S[(32,128,4):(4,1@tx,1)]"
    assert str(spread_layout((8, 12), "tx", 128, 4)) == "S[(24,4):(1@tx,1)]"
    assert splits_at_dims(spread_layout((3, 5), "laneid", 32, 1).shard, (3, 5))


def test_rows_of_12_in_registers_and_shared_memory_every_stage():
    g = "!tirx.buffer<32x12xf32, global>"
    r, s = "!tirx.buffer<32x12xf32, local>", "!tirx.buffer<32x12xf32, shared>"
    text = f"""tirx.kernel @k(%X: {g}, %W: {g}) -> (%Y: {g}) grid [1] threads [32] target "cuda -arch=sm_80" {{
  %t = tirx.alloc : {r}
  %w = tirx.alloc : {s}
  tirx.copy cta %t, %X : {r}, {g}
  tirx.copy cta %w, %W : {s}, {g}
  tirx.mul cta %w, %w, %w : {s}, {s}, {s}
  tirx.add cta %t, %t, %w : {r}, {r}, {s}
  tirx.copy cta %Y, %t : {g}, {r}
  tirx.return
}}
"""
    check_every_stage(text, lambda x, w: [x + np.float32(w) * w])
