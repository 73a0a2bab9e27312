"""`MemorySpace`: how a buffer lies in a memory of rows, the allocation unit, the capacity."""

import pytest
from xdsl.dialects.builtin import bf16, f32

from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.memory_space import MemorySpace, round_up


def space(**overrides) -> MemorySpace:
    fields = dict(scope="shared", rows=8, bytes_per_row=1024, address_attr="x.addr")
    return MemorySpace(**{**fields, **overrides})


def test_in_a_memory_of_rows_dim_0_spans_rows_and_the_rest_lies_in_each_row():
    btype = BufferType([8, 4, 16], bf16, "shared")
    assert space().rows_of(btype) == 8
    assert space().row_bytes(btype) == 4 * 16 * 2


def test_in_a_one_row_memory_the_whole_buffer_lies_in_the_row():
    btype = BufferType([8, 4, 16], f32, "shared")
    assert space(rows=1).rows_of(btype) == 1
    assert space(rows=1).row_bytes(btype) == 8 * 4 * 16 * 4


def test_the_unit_combines_alignment_and_granule_and_the_reserve_is_not_capacity():
    assert space(alignment=64).unit == 64
    assert space(alignment=64, granule=2048).unit == 2048
    assert space(alignment=48, granule=32).unit == 96
    assert space(alignment=64).allocated_bytes(BufferType([8, 3], f32, "shared")) == 64
    assert space(reserve=256).capacity == 768
    assert round_up(65, 64) == 128 and round_up(64, 64) == 64


def test_diagnostics_name_rows_only_when_there_are_several():
    assert space(row_name="partition").per_row() == " per partition"
    assert space(rows=1).per_row() == ""


def test_impossible_figures_are_rejected():
    with pytest.raises(ValueError, match="reserve"):
        space(reserve=2048)
    with pytest.raises(ValueError, match="positive"):
        space(alignment=0)
