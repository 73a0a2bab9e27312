"""The 32/64/128-byte swizzle patterns (PTX ISA "Shared Memory Matrix Layout", CUTLASS
``Swizzle<B,4,3>`` on byte addresses): explicit chunk tables, round trips, base offset; the same
pattern as tile layouts (TIRx's swizzle(M, B, S)), the choice of a mode, column-blocked tiles."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle, swizzle
from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout


def _chunk_table(mode: Swizzle) -> list[list[int]]:
    """For each row of one repeating pattern, the chunk each 16-byte chunk is moved to."""
    rows = []
    for r in range(8):
        base = r * mode.row_bytes
        addrs = base + 16 * np.arange(mode.row_bytes // 16)
        rows.append(((swizzle(addrs, mode) - base) // 16).tolist())
    return rows


def test_128b_xors_the_chunk_with_the_row() -> None:
    assert _chunk_table(Swizzle.B128) == [[c ^ r for c in range(8)] for r in range(8)]


def test_64b_xors_with_the_128_byte_line() -> None:
    # 64-byte rows: rows 2r and 2r+1 share 128-byte line r, XOR with (r % 4)
    assert _chunk_table(Swizzle.B64) == [[c ^ (r // 2 % 4) for c in range(4)] for r in range(8)]


def test_32b_swaps_the_halves_of_rows_4_to_7() -> None:
    assert _chunk_table(Swizzle.B32) == [[0, 1]] * 4 + [[1, 0]] * 4


def test_modes_by_span() -> None:
    assert [Swizzle.of_span(s) for s in (0, 32, 64, 128)] == \
        [Swizzle.NONE, Swizzle.B32, Swizzle.B64, Swizzle.B128]
    assert [m.row_bytes for m in (Swizzle.B32, Swizzle.B64, Swizzle.B128)] == [32, 64, 128]


@pytest.mark.parametrize("mode", list(Swizzle))
def test_round_trip_and_permutation(mode: Swizzle) -> None:
    addrs = np.arange(0, 8192, 2)
    once = swizzle(addrs, mode)
    assert (swizzle(once, mode) == addrs).all()
    assert sorted(once.tolist()) == addrs.tolist()
    assert ((once // mode.pattern_bytes) == (addrs // mode.pattern_bytes)).all()
    assert ((once % 16) == (addrs % 16)).all()          # bytes stay inside their chunk


def test_base_offset_starts_the_pattern_mid_way() -> None:
    start = 3 * 128                                        # a 128B pattern starting at line 3
    addrs = start + np.arange(0, 1024, 16)
    shifted = swizzle(addrs, Swizzle.B128, base_offset=(start >> 7) & 7)
    assert ((shifted - start) // 16).tolist() == \
        [(c ^ r) + 8 * r for r in range(8) for c in range(8)]


# --- the same pattern as tile layouts ----------------------------------------------------------



@pytest.mark.parametrize("elem_bytes", [1, 2, 4])
@pytest.mark.parametrize("mode", [Swizzle.B32, Swizzle.B64, Swizzle.B128])
def test_tile_layout_swizzle_is_the_byte_pattern(mode: Swizzle, elem_bytes: int) -> None:
    """On element offsets of a pattern-aligned buffer, swizzle(M, B, 3) moves every element to
    the byte the hardware pattern moves its bytes to."""
    lsw = sw.layout_swizzle(mode, elem_bytes)
    offsets = np.arange(4096 // elem_bytes, dtype=np.int64)
    assert (lsw.apply(offsets) * elem_bytes == swizzle(offsets * elem_bytes, mode)).all()
    assert sw.mode_of(lsw, elem_bytes) is mode


def test_fp16_128b_is_tirx_333() -> None:
    lsw = sw.layout_swizzle(Swizzle.B128, 2)
    assert (lsw.per_element, lsw.swizzle_len, lsw.atom_len) == (3, 3, 3)
    assert str(sw.swizzled_layout((8, 64), 2, Swizzle.B128)) == "swizzle(3,3,3) S[8,64]"
    assert sw.layout_swizzle(Swizzle.NONE, 2) is None and sw.mode_of(None, 2) is Swizzle.NONE
    assert sw.mode_of(sw.layout_swizzle(Swizzle.B64, 4), 2) is None   # M of 4-byte elements


@pytest.mark.parametrize("elem_bytes, cols, mode", [
    (2, 64, Swizzle.B128), (2, 256, Swizzle.B128), (2, 32, Swizzle.B64), (2, 96, Swizzle.B64),
    (2, 16, Swizzle.B32), (2, 8, Swizzle.NONE), (4, 32, Swizzle.B128), (1, 48, Swizzle.NONE),
    (1, 32, Swizzle.B32)])
def test_choose_takes_the_widest_row_that_divides(elem_bytes, cols, mode) -> None:
    assert sw.choose_swizzle(elem_bytes, cols) is mode


def test_column_blocks() -> None:
    """A [16, 128] f16 tile with 128B rows is two [16, 64] blocks, each one TMA box."""
    layout = sw.swizzled_layout((16, 128), 2, Swizzle.B128)
    assert str(layout) == "swizzle(3,3,3) S[(16,2,64):(64,1024,1)]"
    m = layout.apply_array((16, 128))["m"]
    assert sorted(m.ravel().tolist()) == list(range(16 * 128))        # a permutation
    # block j holds columns 64j..64j+63, its rows 128 bytes apart before the XOR
    unswz = sw.swizzle(m * 2, Swizzle.B128) // 2
    assert (unswz == (np.arange(16)[:, None] * 64 + (np.arange(128) // 64) * 1024
                      + np.arange(128) % 64)).all()
    assert sw.swizzled_tile(layout, (16, 128), 2) is Swizzle.B128
    assert sw.swizzled_tile(TileLayout.row_major((16, 128)), (16, 128), 2) is Swizzle.NONE
    assert sw.swizzled_tile(layout, (16, 128), 4) is None


def test_tile_that_does_not_split_is_an_error() -> None:
    with pytest.raises(LayoutError, match="multiple of 64"):
        sw.swizzled_layout((8, 96), 2, Swizzle.B128)
    with pytest.raises(LayoutError, match="rows a multiple of 8"):
        sw.swizzled_layout((4, 64), 2, Swizzle.B128)
    with pytest.raises(LayoutError, match="elements"):
        sw.layout_swizzle(Swizzle.B128, 3)


def test_tensor_map_names() -> None:
    assert [m.tensor_map_name for m in Swizzle] == ["none", "128B", "64B", "32B"]
    assert [m.span for m in Swizzle] == [0, 128, 64, 32]


def test_a_ring_of_tiles() -> None:
    """Leading dims index whole tiles: stage s of a [3, 16, 64] f16 ring is the [16, 64] tile's
    layout shifted by whole patterns (the XOR is the same in every stage)."""
    ring = sw.swizzled_layout((3, 16, 64), 2, Swizzle.B128)
    assert str(ring) == "swizzle(3,3,3) S[3,16,64]"         # one block per row: row-major
    one = sw.swizzled_layout((16, 64), 2, Swizzle.B128).apply_array((16, 64))["m"]
    m = ring.apply_array((3, 16, 64))["m"]
    for s in range(3):
        assert (m[s] == s * 1024 + one).all()
    assert sw.swizzled_tile(ring, (3, 16, 64), 2) is Swizzle.B128
    assert sw.swizzled_tile(None, (3, 16, 64), 2) is Swizzle.NONE
    with pytest.raises(LayoutError, match="at least 2 dims"):
        sw.swizzled_layout((64,), 2, Swizzle.B128)
