"""RegisterPartition: coord(thread, register) = thread part + register part, checked against the
layout's own forward map (TileLayout.apply_array) for every element."""

from __future__ import annotations

import numpy as np
import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends.cuda.dispatch.common import axis_values_np
from tirx_mlir.backends.cuda.layout.defaults import default_register_layout, spread_layout
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition, partition_of
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.layout import TileLayout

LAYOUTS = [
    ("S[(32,128,4):(4,1@tx,1)]", (128, 128)),          # default CTA spread, iterators straddle
    ("S[(8,4,2):(4@laneid,1@laneid,1)]", (8, 8)),       # an mma C fragment of one 8x8 tile
    ("S[(2,8,2,4,2):(1@warpid,4@laneid,2,1@laneid,1)]", (16, 16)),
    ("S[(4,32):(1,1@laneid)]", (4, 32)),
]


@pytest.mark.parametrize("text,shape", LAYOUTS)
def test_coordinates_match_the_layout(text, shape):
    layout = TileLayout.parse(text)
    part = RegisterPartition(layout, shape)
    table = layout.apply_array(shape)
    axes = axis_values_np(np.arange(1024))
    seen = set()
    for idx in np.ndindex(*shape):
        thread = {a: int(table[a][idx]) for a in part.threads}
        reg = int(table["m"][idx]) if "m" in table else 0
        coord = tuple(t + r for t, r in zip(part.thread_coords_of(thread), part.reg_coords(reg)))
        assert coord == idx
        seen.add((tuple(sorted(thread.items())), reg))
    assert len(seen) == np.prod(shape)
    assert part.nregs == max(part.registers()) + 1
    assert axes["laneid"][37] == 5 and axes["warpid"][37] == 1


def test_straddling_iterator_that_does_not_divide_is_refused():
    with pytest.raises(PartitionError, match="straddles"):
        RegisterPartition(TileLayout.parse("S[(3,8):(8,1)]"), (4, 6))


def test_default_spread_uses_every_thread_with_16_byte_vectors():
    layout = default_register_layout((64, 128), 4, ExecScope.CTA, 128)
    assert str(layout) == str(TileLayout.parse("S[(16,128,4):(4,1@tx,1)]"))
    part = RegisterPartition(layout, (64, 128))
    assert part.nregs == 64 and part.threads == {"tx": 128}


def test_spread_with_fewer_elements_than_threads_uses_fewer_threads():
    part = RegisterPartition(spread_layout((1, 64), "tx", 128, 4), (1, 64))
    assert part.threads == {"tx": 16} and part.nregs == 4


WITH_REPLICA_AND_OFFSET = ("S[(4,8):(1,1@laneid)] + R[2:8@laneid] + 3@laneid", (4, 8))


@pytest.mark.parametrize("text,shape", LAYOUTS + [WITH_REPLICA_AND_OFFSET])
def test_thread_coords_array_is_thread_coords_of_for_every_thread(text, shape):
    """The vectorised thread part (static checks over a scope) equals the per-thread one,
    offsets and replicas included."""
    layout = TileLayout.parse(text)
    part = RegisterPartition(layout, shape)
    axes = axis_values_np(np.arange(256))
    got = part.thread_coords_array(axes, 256)
    assert got.shape == (256, len(shape))
    for t in range(256):
        assert tuple(got[t]) == part.thread_coords_of({a: int(axes[a][t]) for a in part.threads})


def test_partition_of_builds_each_layout_and_shape_once():
    layout = TileLayout.parse("S[(8,4,2):(4@laneid,1@laneid,1)]")
    part = partition_of(layout, (8, 8))
    assert partition_of(TileLayout.parse("S[(8,4,2):(4@laneid,1@laneid,1)]"), [8, 8]) is part
    assert partition_of(layout, (64,)) is not part and partition_of(layout, (64,)).shape == (64,)
    for _ in range(2):  # a refusal is not remembered as an answer
        with pytest.raises(PartitionError, match="straddles"):
            partition_of(TileLayout.parse("S[(3,8):(8,1)]"), (4, 6))
