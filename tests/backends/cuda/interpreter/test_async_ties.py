"""The bookkeeping of ``cp.async.mbarrier.arrive`` ties (async_state.py: ties indexed by
mbarrier and by the copy units they wait for): a tie arrives as soon as its last unit lands,
whichever mbarrier's test or which ``wait_group`` lands it; a test lands the ties of its own
mbarrier in arrival order and stops once the phase completes, leaving the rest in flight.

Each thread issues copy A (``%sm[t]``), ties an arrival on ``bar1`` (waiting for A), issues
copy B (``%sm[32 + t]``) and ties an arrival on ``bar2`` (waiting for A and B: a
``cp.async.mbarrier.arrive`` covers every earlier cp.async of its thread)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_async import spin_wait
from tirx_mlir.interpreter.runtime import InterpretError


def _two_ties(count2: int, first: str, read: str, between: str = "") -> str:
    """``first``: the mbarrier waited for first (the other one after it); ``read``: the index
    each thread reads of ``%sm`` after both waits (and stores to ``Out[t]``)."""
    other = {"%pb1": "%pb2", "%pb2": "%pb1"}[first]
    return cuda_kernel(
        "(%In: !tirx.buffer<64xi32, global>) -> (%Out: !tirx.buffer<32xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %count1 = arith.constant 32 : i32
  %count2 = arith.constant {count2} : i32
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<64xi32, shared>
  %bars = cuda.shared_alloc align 8 : !tirx.buffer<2xi64, shared>
  %c1 = arith.constant 1 : index
  %pb1 = cuda.address %bars, %c0 : !tirx.buffer<2xi64, shared>, index -> i32
  %pb2 = cuda.address %bars, %c1 : !tirx.buffer<2xi64, shared>, index -> i32
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb1], %count1 : (i32, i32) -> ()
    ptx.mbarrier_init "shared" [%pb2], %count2 : (i32, i32) -> ()
  }}
  cuda.sync_threads
  %ga = cuda.address %In, %t : !tirx.buffer<64xi32, global>, index -> i64
  %sa = cuda.address %sm, %t : !tirx.buffer<64xi32, shared>, index -> i32
  %tb = arith.addi %t, %c32 : index
  %gb = cuda.address %In, %tb : !tirx.buffer<64xi32, global>, index -> i64
  %sb = cuda.address %sm, %tb : !tirx.buffer<64xi32, shared>, index -> i32
  ptx.cp_async "ca.shared" [%sa], [%ga], 4 : (i32, i64) -> ()
  ptx.cp_async_mbarrier_arrive "noinc.shared" [%pb1] : (i32) -> ()
  ptx.cp_async "ca.shared" [%sb], [%gb], 4 : (i32, i64) -> ()
  ptx.cp_async_mbarrier_arrive "noinc.shared" [%pb2] : (i32) -> ()
  {between}
{spin_wait(bar=first)}
{spin_wait(bar=other)}
  %r = {read}
  %v = cuda.load %sm, %r : !tirx.buffer<64xi32, shared>, index -> i32
  cuda.store %Out, %t, %v : !tirx.buffer<32xi32, global>, index, i32""")


MIRROR_A = "arith.subi %c31, %t : index"
MIRROR_B = "arith.subi %c63, %t : index"


@pytest.mark.parametrize("first", ["%pb1", "%pb2"])
@pytest.mark.parametrize("mirror", [MIRROR_A, MIRROR_B])
def test_a_tie_landed_by_another_mbarriers_test_arrives_at_that_landing(first, mirror):
    # waiting for bar2 first lands A and B of every thread in arrival order: landing A_t
    # completes bar1's tie of thread t too, so bar1's phase is complete when it is tested
    # (an index that arrived only ties of the mbarrier being tested would deadlock there)
    x = np.arange(64, dtype=np.int32) * 5 + 3
    (out,), _ = run_simt(_two_ties(32, first, mirror), x)
    want = x[31 - np.arange(32)] if mirror == MIRROR_A else x[63 - np.arange(32)]
    np.testing.assert_array_equal(out, want)


def test_a_wait_group_landing_the_copies_arrives_their_ties():
    # wait_all lands A and B before any test: both ties of each thread arrive then, and the
    # tests find both phases complete
    x = np.arange(64, dtype=np.int32) + 100
    (out,), _ = run_simt(_two_ties(32, "%pb1", MIRROR_B, between="ptx.cp_async_wait_all"), x)
    np.testing.assert_array_equal(out, x[63 - np.arange(32)])


def test_copies_a_phase_did_not_need_stay_in_flight_across_two_mbarriers():
    # bar2 counts 16: its test lands A and B of threads 0-15 (their bar1 ties arrive on the
    # way) and stops; bar1's test then lands only A of threads 16-31 (16 more arrivals
    # complete it). B of threads 16-31 is still in flight: thread 0 reading %sm[63] (B of
    # thread 31) is an error naming that copy, while A of thread 31 (%sm[31]) was delivered
    x = np.arange(64, dtype=np.int32)
    (out,), _ = run_simt(_two_ties(16, "%pb2", "arith.subi %c31, %c0 : index"), x)
    np.testing.assert_array_equal(out, np.full(32, 31))
    with pytest.raises(InterpretError) as err:
        run_simt(_two_ties(16, "%pb2", "arith.subi %c63, %c0 : index"), x)
    msg = str(err.value)
    assert "[async] cuda.load: reads shared offset 252 (%sm[63]) of CTA (0,0,0), the " \
           "destination of the ptx.cp_async at <test>:30:3 issued by thread (31,0,0)" in msg, msg
    assert msg.splitlines()[0].endswith("(thread (0,0,0) of CTA (0,0,0))"), msg


def test_b_of_the_sixteenth_thread_is_the_first_left_in_flight():
    # the same, reading B of thread 16 (the first tie past the phase) and B of thread 15 (the
    # last one it needed)
    x = np.arange(64, dtype=np.int32)
    (out,), _ = run_simt(_two_ties(16, "%pb2", "arith.constant 47 : index"), x)
    np.testing.assert_array_equal(out, np.full(32, 47))
    with pytest.raises(InterpretError) as err:
        run_simt(_two_ties(16, "%pb2", "arith.constant 48 : index"), x)
    assert "reads shared offset 192 (%sm[48]) of CTA (0,0,0), the destination of the " \
           "ptx.cp_async at <test>:30:3 issued by thread (16,0,0)" in str(err.value)


def _arrive_after_wait_all(tie: bool) -> str:
    # each thread copies a word, ties an arrival on the mbarrier (count 32) to it (or not),
    # lands it with wait_all, then arrives itself and returns the phase its arrival counted in
    tied = 'ptx.cp_async_mbarrier_arrive "noinc.shared" [%pb] : (i32) -> ()' if tie else ""
    return cuda_kernel(
        "(%In: !tirx.buffer<32xi32, global>) -> (%Out: !tirx.buffer<32xi64, global>)", f"""
  %c0 = arith.constant 0 : index
  %count = arith.constant 32 : i32
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
  {tied}
  ptx.cp_async_wait_all
  %st = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
  cuda.store %Out, %t, %st : !tirx.buffer<32xi64, global>, index, i64""")


@pytest.mark.parametrize("tie", [True, False])
def test_a_tie_arrives_when_its_copy_lands_not_when_its_mbarrier_is_tested(tie):
    # wait_all lands the copies: their 32 tied arrivals complete phase 0 then, so the plain
    # arrivals after it count in phase 1 (without the ties they complete phase 0); no thread
    # tests the mbarrier in between (an index that arrived ties only when their own mbarrier
    # is tested would count the plain arrivals in phase 0)
    (out,), _ = run_simt(_arrive_after_wait_all(tie), np.arange(32, dtype=np.int32))
    np.testing.assert_array_equal(out, np.full(32, 1 if tie else 0))
