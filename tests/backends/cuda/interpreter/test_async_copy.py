"""cp.async on the SIMT interpreter: every size and zero fill against hand-computed bytes,
groups landing at wait_group N (not before: reading or overwriting a pending destination is a
located error), cp.async.mbarrier.arrive with and without .noinc, and the double-buffered
example against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_async import spin_wait
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLES = Path(__file__).parents[4] / "examples" / "cuda"


def _copy_kernel(size: int, cache: str = "ca", zfill: bool = False, wait: str = "all") -> str:
    k = size // 4
    n = 32 * k
    copy = (f'ptx.cp_async_zfill "{cache}.shared" [%s], [%g], {size}, %keep : (i32, i64, i32) '
            f'-> ()' if zfill else
            f'ptx.cp_async "{cache}.shared" [%s], [%g], {size} : (i32, i64) -> ()')
    waits = {"all": "ptx.cp_async_wait_all",
             "group": "ptx.cp_async_commit_group\n  ptx.cp_async_wait_group 0"}[wait]
    return cuda_kernel(
        f"(%In: !tirx.buffer<{n}xi32, global>) -> (%Out: !tirx.buffer<{n}xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant {k} : index
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<{n}xi32, shared>
  %t = cuda.thread_idx x : index
  %t32 = arith.index_cast %t : index to i32
  %keep = arith.remui %t32, %c5i : i32
  %e = arith.muli %t, %ck : index
  %g = cuda.address %In, %e : !tirx.buffer<{n}xi32, global>, index -> i64
  %s = cuda.address %sm, %e : !tirx.buffer<{n}xi32, shared>, index -> i32
  {copy}
  {waits}
  scf.for %j = %c0 to %ck step %c1 {{
    %i = arith.addi %e, %j : index
    %v = cuda.load %sm, %i : !tirx.buffer<{n}xi32, shared>, index -> i32
    cuda.store %Out, %i, %v : !tirx.buffer<{n}xi32, global>, index, i32
  }}""".replace("%c5i", "%five").replace("  %t32 =", "  %five = arith.constant 5 : i32\n"
                                                   "  %t32 ="))


@pytest.mark.parametrize("size,cache", [(4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")])
def test_cp_async_copies_its_bytes(size, cache):
    x = np.arange(8 * size, dtype=np.int32) * 7 + 1
    (out,), run = run_simt(_copy_kernel(size, cache), x)
    np.testing.assert_array_equal(out, x)
    assert run.stats.total("async_bytes") == 32 * size


def test_cp_async_zfill_reads_src_size_bytes_and_zeroes_the_rest():
    x = np.arange(128, dtype=np.int32) + 0x01010100
    (out,), _ = run_simt(_copy_kernel(16, "cg", zfill=True, wait="group"), x)
    raw = x.view(np.uint8).reshape(32, 16).copy()
    keep = np.arange(32) % 5  # src-size of thread t
    raw[np.arange(16)[None, :] >= keep[:, None]] = 0
    np.testing.assert_array_equal(out.view(np.uint8).reshape(32, 16), raw)


def _groups_kernel(read_newest: bool) -> str:
    # two groups: A -> shared[0:4], B -> shared[4:8]; wait_group 1 lands A only
    idx = "%c4" if read_newest else "%c0"
    return cuda_kernel(
        "(%In: !tirx.buffer<8xi32, global>) -> (%Out: !tirx.buffer<8xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<8xi32, shared>
  %g0 = cuda.address %In, %c0 : !tirx.buffer<8xi32, global>, index -> i64
  %g4 = cuda.address %In, %c4 : !tirx.buffer<8xi32, global>, index -> i64
  %s0 = cuda.address %sm, %c0 : !tirx.buffer<8xi32, shared>, index -> i32
  %s4 = cuda.address %sm, %c4 : !tirx.buffer<8xi32, shared>, index -> i32
  ptx.cp_async "cg.shared" [%s0], [%g0], 16 : (i32, i64) -> ()
  ptx.cp_async_commit_group
  ptx.cp_async "cg.shared" [%s4], [%g4], 16 : (i32, i64) -> ()
  ptx.cp_async_commit_group
  ptx.cp_async_wait_group 1
  %v = cuda.load %sm, {idx} : !tirx.buffer<8xi32, shared>, index -> vector<4xi32>
  cuda.store %Out, %c0, %v : !tirx.buffer<8xi32, global>, index, vector<4xi32>
  ptx.cp_async_wait_group 0
  %w = cuda.load %sm, %c4 : !tirx.buffer<8xi32, shared>, index -> vector<4xi32>
  cuda.store %Out, %c4, %w : !tirx.buffer<8xi32, global>, index, vector<4xi32>""",
        "grid [1] threads [1]")


def test_wait_group_n_lands_all_but_the_n_newest_groups():
    x = np.arange(8, dtype=np.int32) + 10
    (out,), _ = run_simt(_groups_kernel(read_newest=False), x)
    np.testing.assert_array_equal(out, x)


def test_reading_a_destination_before_its_wait_names_the_thread_and_the_copy():
    with pytest.raises(InterpretError) as err:
        run_simt(_groups_kernel(read_newest=True), np.zeros(8, np.int32))
    msg = str(err.value)
    assert msg.startswith("<test>:15:3: error: [async] cuda.load: reads shared offset 16 "
                          "(%sm[4]) of CTA (0,0,0), the destination of the ptx.cp_async at "
                          "<test>:12:3 issued by thread (0,0,0) of CTA (0,0,0), before the "
                          "copy has landed (it lands at the issuing thread's "
                          "ptx.cp_async_wait_group or wait_all, or the mbarrier phase its "
                          "ptx.cp_async_mbarrier_arrive counts in) (thread (0,0,0) of CTA "
                          "(0,0,0))"), msg


def test_overwriting_a_destination_before_its_wait_is_an_error():
    text = cuda_kernel("(%In: !tirx.buffer<4xi32, global>) -> (%Out: !tirx.buffer<4xi32, "
                       "global>)", """
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %seven = arith.constant 7 : i32
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<4xi32, shared>
  %t = cuda.thread_idx x : index
  %g = cuda.address %In, %c0 : !tirx.buffer<4xi32, global>, index -> i64
  %s = cuda.address %sm, %c0 : !tirx.buffer<4xi32, shared>, index -> i32
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    ptx.cp_async "cg.shared" [%s], [%g], 16 : (i32, i64) -> ()
  }
  %one = arith.constant 1 : index
  %second = arith.cmpi eq, %t, %one : index
  scf.if %second {
    cuda.store %sm, %c2, %seven : !tirx.buffer<4xi32, shared>, index, i32
  }""", "grid [1] threads [32]")
    with pytest.raises(InterpretError) as err:
        run_simt(text, np.zeros(4, np.int32))
    msg = str(err.value)
    assert "[async] cuda.store: writes shared offset 8 (%sm[2]) of CTA (0,0,0), the " \
           "destination of the ptx.cp_async at <test>:12:5 issued by thread (0,0,0)" in msg
    assert msg.splitlines()[0].endswith("(thread (1,0,0) of CTA (0,0,0))")


def _arrive_kernel(count: int, noinc: bool) -> str:
    # every lane cp.async-es 4 bytes, ties an arrive to their completion, arrives itself, then
    # waits for phase 0 and reads another lane's word
    mods = "noinc.shared" if noinc else "shared"
    return cuda_kernel(
        "(%In: !tirx.buffer<32xi32, global>) -> (%Out: !tirx.buffer<32xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %count = arith.constant {count} : i32
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<32xi32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
  }}
  cuda.sync_threads
  %g = cuda.address %In, %t : !tirx.buffer<32xi32, global>, index -> i64
  %s = cuda.address %sm, %t : !tirx.buffer<32xi32, shared>, index -> i32
  ptx.cp_async "ca.shared" [%s], [%g], 4 : (i32, i64) -> ()
  ptx.cp_async_mbarrier_arrive "{mods}" [%pb] : (i32) -> ()
  %st = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
{spin_wait(op="test_wait")}
  %r = arith.constant 31 : index
  %m = arith.subi %r, %t : index
  %v = cuda.load %sm, %m : !tirx.buffer<32xi32, shared>, index -> i32
  cuda.store %Out, %t, %v : !tirx.buffer<32xi32, global>, index, i32""")


@pytest.mark.parametrize("count,noinc", [(32, False), (64, True)])
def test_cp_async_mbarrier_arrive_lands_the_copies_at_the_phase(count, noinc):
    # without .noinc the tied arrivals are net zero (32 = the plain arrives); with .noinc they
    # count (64 = 32 tied + 32 plain)
    x = np.arange(32, dtype=np.int32) * 3
    (out,), _ = run_simt(_arrive_kernel(count, noinc), x)
    np.testing.assert_array_equal(out, x[::-1])


def test_noinc_arrivals_missing_from_the_count_complete_the_phase_before_the_data():
    # count 32 with .noinc: the 32 plain arrives complete phase 0 while the copies (and their
    # arrivals) are still pending, so the reads after the wait see undelivered bytes
    with pytest.raises(InterpretError) as err:
        run_simt(_arrive_kernel(32, True), np.zeros(32, np.int32))
    assert "reads shared offset 124 (%sm[31]) of CTA (0,0,0), the destination of the " \
           "ptx.cp_async at <test>:18:3 issued by thread (31,0,0)" in str(err.value)


def test_a_count_one_arrival_too_low_leaves_the_last_copy_in_flight():
    # count 63 for 64 arrivals: the phase completes once 63 have come, and only the copies
    # those needed have landed (data arrives as late as the program allows): the tied copy of
    # thread 31, the 64th arrival, is still in flight when thread 0 reads its word
    with pytest.raises(InterpretError) as err:
        run_simt(_arrive_kernel(63, True), np.zeros(32, np.int32))
    assert "reads shared offset 124 (%sm[31]) of CTA (0,0,0), the destination of the " \
           "ptx.cp_async at <test>:18:3 issued by thread (31,0,0)" in str(err.value)


def test_a_wait_on_a_phase_that_never_completes_is_a_deadlock_naming_the_mbarrier():
    # count 64 without .noinc: the 32 tied arrivals add 32 to the pending count and the 32
    # plain arrives take it back to 64, so the tied ones leave 32 pending for ever
    with pytest.raises(InterpretError) as err:
        run_simt(_arrive_kernel(64, False), np.zeros(32, np.int32))
    assert str(err.value).splitlines()[0] == (
        "<test>:22:5: error: [deadlock] ptx.mbarrier_test_wait_parity: deadlock, no thread can "
        "make progress: threads 0-31 of CTA (0,0,0) wait at ptx.mbarrier_test_wait_parity at "
        "<test>:22:5 for phase 0 (parity 0) of the mbarrier at shared offset 128 (%bar[0]) of "
        "CTA (0,0,0) to complete: 32 of 64 arrivals and 0 transaction bytes pending; it was "
        "initialised at <test>:13:5")


def test_a_phase_complete_before_its_tied_copies_leaves_them_in_flight():
    # count 16 without .noinc: after the 32 plain arrives 16 arrivals are pending and 32 tied
    # ones to come; the first 16 (threads 0-15, in arrival order) complete phase 0, whose wait
    # then passes while the copies of threads 16-31 may still be in flight (on the hardware
    # too): thread 0 reading thread 31's word is an error naming that copy
    with pytest.raises(InterpretError) as err:
        run_simt(_arrive_kernel(16, False), np.zeros(32, np.int32))
    assert str(err.value).startswith(
        "<test>:30:3: error: [async] cuda.load: reads shared offset 124 (%sm[31]) of CTA "
        "(0,0,0), the destination of the ptx.cp_async at <test>:18:3 issued by thread (31,0,0) "
        "of CTA (0,0,0), before the copy has landed (it lands at the issuing thread's "
        "ptx.cp_async_wait_group or wait_all, or the mbarrier phase its "
        "ptx.cp_async_mbarrier_arrive counts in) (thread (0,0,0) of CTA (0,0,0))"), str(err.value)


def test_cp_async_copy_example_matches_numpy():
    x = np.random.default_rng(3).standard_normal(262144).astype(np.float32)
    (y,), run = run_simt((EXAMPLES / "cp_async_copy.mlir").read_text(), x)
    np.testing.assert_array_equal(y, x)
    assert run.stats.total("async_bytes") == x.nbytes


def _landed_by_one_thread(barrier: bool) -> str:
    # thread 0 copies 16 bytes and waits for them; thread 1 reads them, after a
    # __syncthreads or without one
    sync = "cuda.sync_threads" if barrier else ""
    return cuda_kernel(
        "(%In: !tirx.buffer<4xi32, global>) -> (%Out: !tirx.buffer<4xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<4xi32, shared>
  %t = cuda.thread_idx x : index
  %g = cuda.address %In, %c0 : !tirx.buffer<4xi32, global>, index -> i64
  %s = cuda.address %sm, %c0 : !tirx.buffer<4xi32, shared>, index -> i32
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {{
    ptx.cp_async "cg.shared" [%s], [%g], 16 : (i32, i64) -> ()
    ptx.cp_async_wait_all
  }}
  {sync}
  %second = arith.cmpi eq, %t, %c1 : index
  scf.if %second {{
    %v = cuda.load %sm, %c2 : !tirx.buffer<4xi32, shared>, index -> i32
    cuda.store %Out, %c2, %v : !tirx.buffer<4xi32, global>, index, i32
  }}""", "grid [1] threads [32]")


def test_another_thread_reading_a_landed_copy_needs_a_barrier_after_the_wait():
    # cp.async.wait_all makes the bytes visible to the issuing thread only: the racecheck
    # records the landing as the issuer's write, so thread 1's read without a barrier is a RAW
    # hazard naming the copy; with __syncthreads after the wait it reads the copied word
    x = np.array([5, 6, 7, 8], np.int32)
    (out,), _ = run_simt(_landed_by_one_thread(barrier=True), x)
    assert out[2] == 7
    with pytest.raises(InterpretError) as err:
        run_simt(_landed_by_one_thread(barrier=False), x)
    first = str(err.value).splitlines()[0]
    assert "[race] cuda.load: potential RAW hazard at __shared__ 0x8" in first, first
    assert "the read by thread (1,0,0) races with the write by thread (0,0,0) at <test>:12:5 " \
           "(ptx.cp_async)" in first, first


def _overwritten_after_a_read(barrier: bool) -> str:
    # thread 1 reads shared word 2; then thread 0 issues a cp.async over it, after a
    # __syncthreads or without one
    sync = "cuda.sync_threads" if barrier else ""
    return cuda_kernel(
        "(%In: !tirx.buffer<4xi32, global>) -> (%Out: !tirx.buffer<4xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<4xi32, shared>
  %t = cuda.thread_idx x : index
  %first = arith.cmpi eq, %t, %c0 : index
  %second = arith.cmpi eq, %t, %c1 : index
  scf.if %second {{
    %v = cuda.load %sm, %c2 : !tirx.buffer<4xi32, shared>, index -> i32
    cuda.store %Out, %c1, %v : !tirx.buffer<4xi32, global>, index, i32
  }}
  {sync}
  %g = cuda.address %In, %c0 : !tirx.buffer<4xi32, global>, index -> i64
  %s = cuda.address %sm, %c0 : !tirx.buffer<4xi32, shared>, index -> i32
  scf.if %first {{
    ptx.cp_async "cg.shared" [%s], [%g], 16 : (i32, i64) -> ()
    ptx.cp_async_wait_all
    %w = cuda.load %sm, %c2 : !tirx.buffer<4xi32, shared>, index -> i32
    cuda.store %Out, %c2, %w : !tirx.buffer<4xi32, global>, index, i32
  }}""", "grid [1] threads [32]")


def test_a_cp_async_over_bytes_another_thread_read_needs_a_barrier_before_its_issue():
    # the copy may write its bytes at any time after the issue, so it is checked then as the
    # issuing thread's write: thread 1's read, not ordered before it, is a WAR hazard at the
    # cp.async (before: only the landing was recorded, unchecked, and the race went unseen)
    x = np.array([5, 6, 7, 8], np.int32)
    (out,), _ = run_simt(_overwritten_after_a_read(barrier=True), x)
    assert out[2] == 7
    with pytest.raises(InterpretError) as err:
        run_simt(_overwritten_after_a_read(barrier=False), x)
    first = str(err.value).splitlines()[0]
    assert "[race] ptx.cp_async: potential WAR hazard at __shared__ 0x8" in first, first
    assert "the write by thread (0,0,0) races with the read by thread (1,0,0)" in first, first
