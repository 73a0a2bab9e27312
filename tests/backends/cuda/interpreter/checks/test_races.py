"""Racecheck of hand-built shared access streams: hazards, and the barriers that remove them."""

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.checks.races import SharedRaceCheck, hazard_message
from tirx_mlir.backends.cuda.interpreter.wave import Wave


class Stream:
    """A racecheck over ``ctas`` CTAs of ``threads`` threads, fed with word accesses."""

    def __init__(self, threads=64, ctas=1, arena=1024):
        self.wave = Wave((threads, 1, 1), (ctas, 1, 1), None, np.arange(ctas))
        self.check = SharedRaceCheck(self.wave, arena)

    def access(self, kind, lanes, words, site, nbytes=4, cta=None):
        lanes = np.asarray(lanes, dtype=np.int64)
        offsets = np.asarray(words) * 4 if nbytes == 4 else np.asarray(words)
        arena = self.wave.cta[lanes] if cta is None else np.full(lanes.size, cta)
        return self.check.access(kind, arena, offsets, nbytes, lanes, site)

    def barrier(self, scope, lanes):
        self.check.barrier(scope, np.asarray(lanes))


ALL = np.arange(64)


def test_neighbour_read_without_barrier_is_a_raw_hazard():
    s = Stream()
    assert s.access("write", ALL, ALL, "st") is None
    h = s.access("read", ALL, (ALL + 1) % 64, "ld")
    assert (h.kind, h.offset, h.cta) == ("RAW", 4, 0)
    assert (h.first_lane, h.first_site, h.first_access) == (1, "st", "write")
    assert (h.second_lane, h.second_site, h.second_access) == (0, "ld", "read")
    assert h.count == 64 * 4


def test_neighbour_read_after_a_cta_barrier_is_ordered():
    s = Stream()
    s.access("write", ALL, ALL, "st")
    s.barrier("cta", ALL)
    assert s.access("read", ALL, (ALL + 1) % 64, "ld") is None


def test_own_word_needs_no_barrier():
    s = Stream()
    s.access("write", ALL, ALL, "st")
    assert s.access("read", ALL, ALL, "ld") is None
    assert s.access("write", ALL, ALL, "st2") is None


def test_syncwarp_orders_lanes_of_one_warp_only():
    s = Stream()
    warp0 = np.arange(32)
    s.access("write", ALL, ALL, "st")
    s.barrier("warp", warp0)
    s.barrier("warp", warp0 + 32)
    assert s.access("read", warp0, (warp0 + 1) % 32, "ld") is None
    h = s.access("read", [31], [32], "ld_other_warp")
    assert (h.kind, h.first_lane, h.second_lane) == ("RAW", 32, 31)


def test_same_warp_without_syncwarp_races():
    s = Stream()
    s.access("write", [3], [3], "st")
    h = s.access("read", [4], [3], "ld")
    assert (h.kind, h.first_lane, h.second_lane) == ("RAW", 3, 4)


def test_syncwarp_whose_mask_leaves_out_the_writer_does_not_order_it():
    s = Stream()
    s.access("write", [3], [3], "st")
    s.barrier("warp", [4, 5])
    assert s.access("read", [4], [3], "ld").kind == "RAW"


def test_write_after_reads_by_another_warp_is_a_war_hazard():
    s = Stream()
    s.access("write", [0], [0], "init")
    s.barrier("cta", ALL)
    s.access("read", ALL, np.zeros(64, np.int64), "ld")  # everyone reads word 0
    s.barrier("warp", np.arange(32))
    h = s.access("write", [0], [0], "st")
    assert (h.kind, h.first_access, h.first_site, h.second_lane) == ("WAR", "read", "ld", 0)
    assert h.first_lane >= 32


def test_write_after_write_by_another_thread():
    s = Stream()
    s.access("write", [0], [7], "a")
    h = s.access("write", [40], [7], "b")
    assert (h.kind, h.offset, h.first_lane, h.second_lane) == ("WAW", 28, 0, 40)


def test_two_lanes_writing_one_byte_in_one_instruction():
    s = Stream()
    h = s.access("write", [5, 9], [2, 2], "st")
    assert (h.kind, h.first_lane, h.second_lane, h.first_site, h.second_site) == (
        "WAW", 5, 9, "st", "st")


def test_atomics_do_not_race_with_atomics_but_with_plain_accesses():
    s = Stream()
    assert s.access("atomic", ALL, np.zeros(64, np.int64), "red") is None
    assert s.access("atomic", [3], [0], "red2") is None
    h = s.access("read", [7], [0], "ld")
    assert (h.kind, h.first_access, h.first_lane) == ("RAW", "atomic", 3)
    s.barrier("cta", ALL)
    s.access("read", [7], [0], "ld")
    h = s.access("atomic", [8], [0], "red3")
    assert (h.kind, h.first_lane, h.second_access) == ("WAR", 7, "atomic")


def test_plain_write_after_an_atomic_races():
    s = Stream()
    s.access("atomic", [1], [0], "red")
    h = s.access("write", [2], [0], "st")
    assert (h.kind, h.first_access) == ("WAW", "atomic")


def test_distinct_bytes_of_one_word_do_not_race():
    s = Stream()
    assert s.access("write", ALL, ALL, "st8", nbytes=1) is None
    h = s.access("read", [0], [1], "ld8", nbytes=1)
    assert (h.kind, h.offset, h.first_lane) == ("RAW", 1, 1)


def test_named_barrier_orders_its_warps_and_is_transitive():
    s = Stream(threads=96)
    warp = [np.arange(32) + 32 * i for i in range(3)]
    s.access("write", [0], [0], "st")
    s.barrier("cta", np.r_[warp[0], warp[1]])  # bar.sync 1, 64
    assert s.access("read", [32], [0], "ld1") is None
    h = s.access("read", [64], [0], "ld2")
    assert (h.kind, h.second_lane) == ("RAW", 64)
    s.barrier("cta", np.r_[warp[1], warp[2]])  # bar.sync 2, 64: orders warp 0 -> 1 -> 2
    assert s.access("read", [65], [0], "ld3") is None


def test_ctas_have_separate_arenas_and_a_cluster_barrier_orders_across_them():
    s = Stream(threads=32, ctas=2)
    both = np.arange(64)
    assert s.access("write", both, both % 32, "st") is None
    s.barrier("cta", both)
    h = s.access("read", [40], [0], "ld_remote", cta=0)  # CTA 1 reads CTA 0's arena
    assert (h.kind, h.cta, h.first_lane, h.second_lane) == ("RAW", 0, 0, 40)
    s.barrier("cluster", both)
    assert s.access("read", [41], [1], "ld_remote", cta=0) is None


def test_a_barrier_orders_only_what_happened_before_it():
    s = Stream()
    s.barrier("cta", ALL)
    s.access("write", [0], [0], "st")
    assert s.access("read", [1], [0], "ld").kind == "RAW"


@pytest.mark.parametrize("kind", ["read", "write", "atomic"])
def test_empty_access_is_ignored(kind):
    assert Stream().access(kind, [], [], "x") is None


def test_hazard_message_names_both_threads_the_byte_and_the_first_op():
    s = Stream(threads=32, ctas=2)
    s.access("write", [1], [3], "st")
    h = s.access("read", [2], [3], "ld")

    def thread(lane):
        return f"({lane % 32}, 0, 0)"

    def block(cta):
        return f"({cta}, 0, 0)"

    text = hazard_message(h, s.wave, thread, block, lambda site: f"k.mlir:1:1 ({site})")
    assert text == ("potential RAW hazard at __shared__ 0xc in block (0, 0, 0): the read by thread "
                    "(2, 0, 0) races with the write by thread (1, 0, 0) at k.mlir:1:1 (st); no "
                    "barrier orders them (4 bytes of this access race)")
    h = s.access("write", [33], [3], "st_remote", cta=0)
    text = hazard_message(h, s.wave, thread, block, lambda site: site)
    assert text.startswith("potential WAW hazard at __shared__ 0xc in block (0, 0, 0): the write "
                           "by thread (1, 0, 0) of block (1, 0, 0) races with the write by thread "
                           "(1, 0, 0) of block (0, 0, 0) at st;")


# ---- mbarriers: release at arrive, acquire at a wait that observes the phase ------------------

WARP = [np.arange(32) + 32 * i for i in range(4)]


def test_a_wait_on_a_phase_orders_the_arrivals_counted_in_it():
    s = Stream(threads=128)
    s.access("write", WARP[0], WARP[0], "st")
    s.check.release("bar", 0, [0])               # lane 0 arrives for its warp
    assert s.access("read", [32], [5], "ld").kind == "RAW"  # not yet acquired
    s.check.acquire("bar", 0, WARP[1])
    assert s.access("read", WARP[1], WARP[0], "ld") is None
    assert s.access("read", [64], [5], "ld2").kind == "RAW"  # warp 2 did not wait


def test_an_arrival_counted_in_the_next_phase_does_not_order_its_reads():
    """Count 1 for two arrivals: warp 1's spills into phase 1, and a waiter of phase 0 may
    overwrite what warp 1 read (the hazard names warp 1's read)."""
    s = Stream(threads=128)
    s.access("read", [0], [0], "ld0")
    s.access("read", [32], [1], "ld1")
    s.check.release("bar", 0, [0])
    s.check.release("bar", 1, [32])
    s.check.acquire("bar", 0, WARP[2])
    assert s.access("write", [64], [0], "st") is None
    h = s.access("write", [64], [1], "st")
    assert (h.kind, h.first_lane, h.first_site, h.second_lane) == ("WAR", 32, "ld1", 64)
    s.check.acquire("bar", 1, WARP[2])           # the next phase carries it, and phase 0's
    assert s.access("write", [64], [1], "st") is None


def test_a_phase_carries_the_phases_before_it_and_accesses_after_an_arrive_are_not_released():
    s = Stream(threads=128)
    s.access("write", [0], [0], "st0")
    s.check.release("bar", 0, [0])
    s.access("write", [0], [1], "st_late")       # after the arrive: not in any phase
    s.access("write", [32], [2], "st1")
    s.check.release("bar", 1, [32])
    s.check.acquire("bar", 1, WARP[2])
    assert s.access("read", [64, 65], [0, 2], "ld") is None
    h = s.access("read", [64], [1], "ld")
    assert (h.kind, h.first_site) == ("RAW", "st_late")


def test_an_mbarrier_orders_lanes_of_one_warp_that_arrive_and_wait():
    s = Stream(threads=32)
    s.access("write", [0], [0], "st")
    s.check.release("bar", 0, [0])
    s.check.acquire("bar", 0, [5])
    assert s.access("read", [5], [0], "ld") is None
    h = s.access("read", [6], [0], "ld")         # lane 6 did not wait
    assert (h.kind, h.first_lane, h.second_lane) == ("RAW", 0, 6)


def test_a_copy_is_checked_at_issue_against_what_its_issuer_knows():
    """A consumer warp reads a stage and arrives on its empty barrier; the producer may issue
    the refill only after acquiring that arrival."""
    s = Stream(threads=64)
    s.access("read", WARP[1], WARP[1], "ld")
    offsets = np.arange(32 * 4, 64 * 4)
    hazard, _ = s.check.issue_copy(np.zeros(offsets.size), offsets, np.zeros(offsets.size),
                                   "tma")
    assert (hazard.kind, hazard.first_site, hazard.second_site, hazard.second_lane) == \
        ("WAR", "ld", "tma", 0)
    assert hazard.count == 128
    s.check.release("empty", 0, [32])
    s.check.acquire("empty", 0, [0])
    hazard, known = s.check.issue_copy(np.zeros(offsets.size), offsets,
                                       np.zeros(offsets.size), "tma")
    assert hazard is None and set(known) == {0}


def test_a_landed_copy_is_ordered_before_the_waiters_of_its_phase_only():
    s = Stream(threads=96)
    offsets = np.arange(16)
    lanes = np.zeros(16, np.int64)
    _, known = s.check.issue_copy(np.zeros(16), offsets, lanes, "tma")
    s.check.land_copy("full", 0, np.zeros(16), offsets, lanes, "tma", known)
    h = s.access("read", [0], [0], "ld")         # the issuer itself, without waiting
    assert (h.kind, h.first_lane, h.first_site) == ("RAW", 0, "tma")
    s.check.acquire("full", 0, WARP[1])
    assert s.access("read", WARP[1][:4], np.arange(4), "ld") is None
    assert s.access("read", [64], [0], "ld").kind == "RAW"
    s.barrier("cta", np.arange(96))              # a barrier shares what warp 1 acquired
    assert s.access("read", [64], [1], "ld") is None


def test_a_copy_issued_after_acquiring_a_landing_does_not_race_with_it():
    s = Stream(threads=64)
    offsets = np.arange(8)
    _, known = s.check.issue_copy(np.zeros(8), offsets, np.full(8, 32), "tma1")
    s.check.land_copy("full", 0, np.zeros(8), offsets, np.full(8, 32), "tma1", known)
    hazard, _ = s.check.issue_copy(np.zeros(8), offsets, np.zeros(8), "tma2")
    assert (hazard.kind, hazard.first_lane, hazard.first_site) == ("WAW", 32, "tma1")
    s.check.acquire("full", 0, [1])             # lane 1 waits, then lane 0 issues again
    hazard, _ = s.check.issue_copy(np.zeros(8), offsets, np.zeros(8), "tma2")
    assert hazard is None


def test_the_phase_a_copy_completes_carries_its_issuers_clock():
    s = Stream(threads=64)
    s.access("write", [0], [0], "st")            # the producer writes, then issues a copy
    _, known = s.check.issue_copy(np.zeros(4), np.arange(64, 68), np.zeros(4), "tma")
    s.access("write", [0], [1], "st_after")      # after the issue: not carried
    s.check.land_copy("full", 0, np.zeros(4), np.arange(64, 68), np.zeros(4), "tma", known)
    s.check.acquire("full", 0, [32])
    assert s.access("read", [32], [0], "ld") is None
    assert s.access("read", [32], [1], "ld").first_site == "st_after"


def test_a_remote_arrival_orders_reads_of_another_cta_before_a_multicast():
    """CTA 1's warp reads its tile and arrives on CTA 0's empty barrier (a remote arrive);
    CTA 0's producer acquires it and multicasts into both CTAs."""
    wave = Wave((32, 1, 1), (2, 1, 1), (2, 1, 1), np.arange(2))
    check = SharedRaceCheck(wave, 256)
    cta1 = np.arange(32, 64)
    assert check.access("read", np.ones(32), np.arange(32) * 4, 4, cta1, "ld") is None
    dest = (np.repeat([0, 1], 128), np.tile(np.arange(128), 2))
    hazard, _ = check.issue_copy(*dest, np.zeros(256), "tma")
    assert (hazard.kind, hazard.cta, hazard.first_lane, hazard.count) == ("WAR", 1, 32, 128)
    check.release("empty0", 0, [32])
    check.acquire("empty0", 0, [0])
    hazard, _ = check.issue_copy(*dest, np.zeros(256), "tma")
    assert hazard is None
