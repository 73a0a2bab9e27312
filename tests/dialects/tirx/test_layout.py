"""TileLayout: the mapping semantics of TIRx's layouts (apache/tvm `python/tvm/tirx/layout.py`), the spec DSL and its errors."""

import itertools
import math

import numpy as np
import pytest

from tirx_mlir.dialects.tirx.layout import Iter, LayoutError, Swizzle, TileLayout


def brute_force(layout: TileLayout, shape):
    """Coordinates of every element straight from the definition (flatten, mixed-radix split)."""
    out = {}
    for index in itertools.product(*map(range, shape)):
        flat = int(np.ravel_multi_index(index, shape))
        digits = []
        for it in reversed(layout.shard):
            flat, d = divmod(flat, it.extent)
            digits.append(d)
        coords = {}
        for it, d in zip(reversed(layout.shard), digits):
            coords[it.axis] = coords.get(it.axis, 0) + d * it.stride
        for ax, off in layout.offset:
            coords[ax] = coords.get(ax, 0) + off
        out[index] = coords
    return out


WORKED = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid"


@pytest.mark.parametrize("text,shape", [
    ("S[128,512]", (128, 512)),
    ("S[(128,512):(1@P,1@F)]", (128, 512)),
    ("S[(2,128,512):(512@F,1@P,1@F)]", (256, 512)),
    ("S[(128,128):(1@F,1@P)]", (128, 128)),
    (WORKED, (16, 8)),
    ("S[(4,6):(1,4)] + 3", (24,)),
])
def test_apply_matches_definition(text, shape):
    layout = TileLayout.parse(text)
    layout.verify_covers(shape)
    expected = brute_force(layout, shape)
    arrays = layout.apply_array(shape)
    for index, coords in expected.items():
        assert layout.apply(index, shape) == {**{a: 0 for a in layout.axes()}, **coords}
        for ax, value in coords.items():
            assert arrays[ax][index] == value


def test_worked_example_of_the_tirx_docs():
    layout = TileLayout.parse(WORKED)
    assert [it.axis for it in layout.shard] == ["laneid", "warpid", "laneid", "m"]
    assert layout.offset == (("warpid", 5),)
    assert layout.replica_offsets() == [{"warpid": 0}, {"warpid": 4}]
    assert layout.span("laneid") == 7 * 4 + 3 * 1 + 1
    # element 0 sits on warps 5 and 9 (offset 5 plus replica 0 and 4)
    coords = layout.apply((0, 0), (16, 8))
    assert {coords["warpid"] + r["warpid"] for r in layout.replica_offsets()} == {5, 9}


@pytest.mark.parametrize("text", [WORKED, "S[128,512]", "S[(128,512):(1@P,1@F)]",
                                  "swizzle(3,3,3) S[8,64]", "S[64:2@TCol] + R[(4,2):(32@TLane,1@TCol)]"])
def test_text_round_trip(text):
    layout = TileLayout.parse(text)
    assert TileLayout.parse(str(layout)) == layout


def test_row_major_prints_short():
    assert str(TileLayout.row_major((4, 8))) == "S[4,8]"
    assert TileLayout.row_major((4, 8)).is_trivial_row_major((4, 8))


def test_swizzle_is_a_permutation_within_each_atom():
    sw = Swizzle(3, 3, 3)  # fp16, 128-byte swizzle
    m = np.arange(8 * 64)
    out = sw.apply(m)
    assert sorted(out.tolist()) == m.tolist()
    # 16-byte chunks (8 fp16) move together
    assert (out.reshape(-1, 8) - out.reshape(-1, 8)[:, :1] == np.arange(8)).all()
    # row r's chunk c lands at chunk c ^ r (the bank-conflict-free pattern)
    chunks = (out.reshape(8, 8, 8)[:, :, 0] // 8) % 8
    assert (chunks == np.arange(8)[None, :] ^ np.arange(8)[:, None]).all()


def test_span_and_coverage():
    layout = TileLayout.parse("S[(2,128,512):(512@F,1@P,1@F)]")
    assert layout.span("P") == 128 and layout.span("F") == 1024
    with pytest.raises(LayoutError, match="covers 131072 elements"):
        layout.verify_covers((128, 512))


def test_a_layout_may_pad_dim_0_to_whole_outer_steps():
    """257 rows in tiles of 128: the last tile is partial; no more padding than that."""
    layout = TileLayout.parse("S[(3,128,64):(64@F,1@P,1@F)]")
    layout.verify_covers((257, 64))
    layout.verify_covers((384, 64))
    assert layout.pads_dim0((257, 64)) and not layout.pads_dim0((384, 64))
    assert layout.apply((256, 5), (257, 64)) == {"F": 2 * 64 + 5, "P": 0}
    for rows in (256, 200):
        with pytest.raises(LayoutError, match="covers 24576 elements"):
            layout.verify_covers((rows, 64))
    with pytest.raises(LayoutError):
        layout.verify_covers((257, 63))


def test_dim_groups():
    layout = TileLayout.parse("S[(2,128,512):(512@F,1@P,1@F)]")
    groups = layout.dim_groups((256, 512))
    assert [[it.extent for it in g] for g in groups] == [[2, 128], [512]]
    assert layout.dim_groups((128, 1024)) is None


@pytest.mark.parametrize("text,message", [
    ("S[(128,512):(1@Q,1@F)]", "unknown layout axis 'Q'"),
    ("S[(128,512):(1@P)]", "2 extents but 1 strides"),
    ("R[2:1@P]", "has no shard"),
    ("S[4] + S[4]", "two shards"),
    ("S[(4,0):(1,1)]", "non-positive extent"),
    ("S[4:-1]", "negative stride"),
    ("swizzle(3,3,2) S[8,64]", "atom_len >= swizzle_len"),
    ("S[4", "ends early"),
    ("S[4] $", "unexpected character"),
])
def test_errors_say_what_is_wrong(text, message):
    with pytest.raises(LayoutError, match=message):
        TileLayout.parse(text)


def test_iter_text():
    assert str(Iter(4, 2, "m")) == "2" and str(Iter(4, 1, "P")) == "1@P"
    assert math.prod(it.extent for it in TileLayout.parse(WORKED).shard) == 128


def test_a_layouts_hash_is_the_dataclass_hash_of_its_fields_kept_once():
    import dataclasses

    a = TileLayout.parse("swizzle(3,2,3) S[(64,32):(32,1)]")
    fields = (a.shard, a.replica, a.offset, a.swizzle)
    assert hash(a) == hash(fields) == hash(TileLayout.parse("swizzle(3,2,3) S[(64,32):(32,1)]"))
    assert a.__dict__["_hash"] == hash(fields)  # kept beside the fields
    moved = dataclasses.replace(a, offset=(("m", 4),))  # the copy does not take the kept hash
    assert moved != a and hash(moved) == hash((moved.shard, moved.replica, moved.offset,
                                               moved.swizzle)) != hash(a)
    assert repr(a) == repr(TileLayout.parse("swizzle(3,2,3) S[(64,32):(32,1)]"))
    assert {a: 1}[TileLayout.parse("swizzle(3,2,3) S[(64,32):(32,1)]")] == 1
    import copy
    import pickle

    for again in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert again == a and "_hash" not in again.__dict__ and hash(again) == hash(a)
