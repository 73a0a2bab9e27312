"""The 32/64/128-byte swizzle patterns (PTX ISA "Shared Memory Matrix Layout", CUTLASS
``Swizzle<B,4,3>`` on byte addresses): explicit chunk tables, round trips, base offset."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core.swizzle import Swizzle, swizzle


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
