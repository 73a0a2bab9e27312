"""Bank conflicts of hand-built warp accesses, counted the way Nsight Compute counts wavefronts."""

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.banks import bank_wavefronts

LANES = np.arange(32)


def one_warp(offsets, nbytes=4, lanes=LANES):
    report = bank_wavefronts(np.zeros(len(lanes), np.int64), lanes, np.asarray(offsets), nbytes)
    assert report.warps.tolist() == [0]
    return int(report.wavefronts[0]), int(report.conflicts[0])


def test_transposed_column_read_of_32x32_f32_tile_is_a_32_way_conflict():
    column = 5
    assert one_warp((LANES * 32 + column) * 4) == (32, 31)


def test_column_read_of_tile_padded_to_33_columns_is_conflict_free():
    column = 5
    assert one_warp((LANES * 33 + column) * 4) == (1, 0)


def test_row_read_is_conflict_free():
    assert one_warp(LANES * 4) == (1, 0)


def test_lanes_reading_one_word_broadcast():
    assert one_warp(np.zeros(32, np.int64)) == (1, 0)
    # sub-word: bytes and halves of the same two words
    assert one_warp(LANES // 16 * 4 + LANES % 4, nbytes=1) == (1, 0)


def test_two_words_of_one_bank_are_a_2_way_conflict():
    offsets = LANES * 4
    offsets[7] = 128 + 3 * 4  # lane 7 takes a second word of bank 3: lanes 3 and 7 collide
    assert one_warp(offsets) == (2, 1)


def test_stride_two_words_is_a_2_way_conflict():
    assert one_warp(LANES * 8) == (2, 1)


def test_conflict_free_128_bit_access_takes_four_wavefronts_and_no_conflict():
    assert one_warp(LANES * 16, nbytes=16) == (4, 0)


def test_128_bit_access_with_32_byte_stride_conflicts_within_each_quarter_warp():
    # a quarter warp of 8 lanes spans 256 bytes: every bank holds 2 of its words
    assert one_warp(LANES * 32, nbytes=16) == (8, 4)


def test_64_bit_access_is_served_per_half_warp():
    assert one_warp(LANES * 8, nbytes=8) == (2, 0)
    # half warps are independent: lanes 0 and 16 in one bank are not a conflict
    assert one_warp(LANES * 8 % 128, nbytes=8) == (2, 0)
    # within a half warp they are
    assert one_warp(LANES * 16, nbytes=8) == (4, 2)


def test_partially_active_warp_has_an_ideal_of_its_active_phases():
    lanes = np.arange(8)
    assert one_warp(lanes * 16, nbytes=16, lanes=lanes) == (1, 0)
    lanes = np.array([0, 31])
    assert one_warp(lanes * 0, nbytes=16, lanes=lanes) == (2, 0)


def test_many_warps_are_counted_separately():
    warps = np.repeat([3, 9], 32)
    lanes = np.tile(LANES, 2)
    offsets = np.r_[LANES * 128, LANES * 4]  # warp 3: one bank; warp 9: a row
    report = bank_wavefronts(warps, lanes, offsets, 4)
    assert report.warps.tolist() == [3, 9]
    assert report.wavefronts.tolist() == [32, 1]
    assert report.conflicts.tolist() == [31, 0]
    assert (report.total_wavefronts, report.total_conflicts) == (33, 31)


def test_width_per_lane():
    report = bank_wavefronts(np.zeros(32, np.int64), LANES, LANES * 16, np.full(32, 16))
    assert report.wavefronts.tolist() == [4]


def test_no_lane():
    report = bank_wavefronts(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), 4)
    assert report.warps.size == 0 and report.total_conflicts == 0
