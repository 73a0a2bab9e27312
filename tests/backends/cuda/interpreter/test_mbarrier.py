"""mbarriers on the SIMT interpreter: phase tokens and parities, arrivals counted in lane order
across phases, expect_tx / arrive_expect_tx with transaction bytes, the deadlock message of a
phase that never completes, misuse (uninitialised, a plain access, re-init in use), and the
producer/consumer example against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_async import spin_wait
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLES = Path(__file__).parents[4] / "examples" / "cuda"
OUT = "!tirx.buffer<64xi64, global>"


def _kernel(body: str, count: int = 4, threads: int = 4) -> str:
    return cuda_kernel(f"() -> (%Out: {OUT})", f"""
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %count = arith.constant {count} : i32
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<2xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<2xi64, shared>, index -> i32
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
  }}
  cuda.sync_threads
{body}""", f"grid [1] threads [{threads}]")


def _store(slot: int, value: str, kind: str = "i1") -> str:
    cast = f"arith.extui {value} : i1 to i64" if kind == "i1" else None
    lines = []
    if cast:
        lines.append(f"  %x{slot} = {cast}")
        value = f"%x{slot}"
    lines.append(f"  %i{slot}a = arith.constant {slot * 4} : index")
    lines.append(f"  %i{slot} = arith.addi %i{slot}a, %t : index")
    lines.append(f"  cuda.store %Out, %i{slot}, {value} : {OUT}, index, i64")
    return "\n".join(lines)


def test_arrivals_complete_phases_and_tokens_name_the_phase():
    # 4 threads, count 4: phase 0 completes after one arrive each; parity 0 is then done,
    # parity 1 (phase 1) is not; a second round completes phase 1
    body = "\n".join([
        "  %before0 = ptx.mbarrier_test_wait_parity \"shared\" [%pb], %p0 : (i32, i32) -> i1",
        "  %before1 = ptx.mbarrier_test_wait_parity \"shared\" [%pb], %p1 : (i32, i32) -> i1",
        _store(0, "%before1"),
        "  %tok0 = ptx.mbarrier_arrive \"shared\" [%pb] : (i32) -> i64",
        _store(1, "%tok0", "i64"),
        "  %after0 = ptx.mbarrier_test_wait_parity \"shared\" [%pb], %p0 : (i32, i32) -> i1",
        _store(2, "%after0"),
        "  %tok1 = ptx.mbarrier_arrive \"shared\" [%pb] : (i32) -> i64",
        _store(3, "%tok1", "i64"),
        "  %after1 = ptx.mbarrier_try_wait_parity \"shared\" [%pb], %p1 : (i32, i32) -> i1",
        _store(4, "%after1"),
    ])
    (out,), _ = run_simt(_kernel(body))
    rows = out[:20].reshape(5, 4)
    np.testing.assert_array_equal(rows[0], 1)   # parity 1 = "the phase before 0": complete
    np.testing.assert_array_equal(rows[1], 0)   # arrived in phase 0
    np.testing.assert_array_equal(rows[2], 1)
    np.testing.assert_array_equal(rows[3], 1)   # arrived in phase 1
    np.testing.assert_array_equal(rows[4], 1)


def test_lanes_of_one_arrive_count_in_lane_order_across_phases():
    # count 2, 4 threads arrive at once: threads 0,1 complete phase 0, threads 2,3 phase 1
    body = "  %tok = ptx.mbarrier_arrive \"shared\" [%pb] : (i32) -> i64\n" + _store(0, "%tok",
                                                                                    "i64")
    (out,), _ = run_simt(_kernel(body, count=2))
    np.testing.assert_array_equal(out[:4], [0, 0, 1, 1])


def _tx_kernel(expect: int, complete_with: str) -> str:
    # thread 0 expects `expect` bytes then arrives; the other 3 arrive; a 16-byte bulk copy
    # completes 16 of the bytes
    return cuda_kernel(f"(%In: !tirx.buffer<4xi32, global>) -> (%Out: {OUT})", f"""
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %count = arith.constant 4 : i32
  %tx = arith.constant {expect} : i32
  %size = arith.constant 16 : i32
  %true = arith.constant true
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %dst = cuda.shared_alloc align 16 : !tirx.buffer<4xi32, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %pd = cuda.address %dst, %c0 : !tirx.buffer<4xi32, shared>, index -> i32
  %g = cuda.address %In, %c0 : !tirx.buffer<4xi32, global>, index -> i64
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
  }}
  cuda.sync_threads
  scf.if %leader {{
    {complete_with}
    ptx.cp_async_bulk_g2s "shared::cta" [%pd], [%g], %size, [%pb] : (i32, i64, i32, i32) -> ()
  }} else {{
    %s = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
  }}
{spin_wait()}
  %v = cuda.load %dst, %t : !tirx.buffer<4xi32, shared>, index -> i32
  %w = arith.extsi %v : i32 to i64
  cuda.store %Out, %t, %w : {OUT}, index, i64""", "grid [1] threads [4]",
                       target="cuda -arch=sm_90a")


@pytest.mark.parametrize("complete_with", [
    'ptx.mbarrier_arrive_expect_tx "shared" [%pb], %tx : (i32, i32) -> i64',
    'ptx.mbarrier_expect_tx "cta.shared::cta" [%pb], %tx : (i32, i32) -> ()\n'
    '    %s0 = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64'])
def test_transaction_bytes_complete_the_phase_with_the_copy(complete_with):
    x = np.array([5, 6, 7, 8], dtype=np.int32)
    (out,), _ = run_simt(_tx_kernel(16, complete_with), x)
    np.testing.assert_array_equal(out[:4], x)


def test_expecting_more_bytes_than_arrive_is_a_deadlock_naming_the_tx_count():
    text = _tx_kernel(48, 'ptx.mbarrier_arrive_expect_tx "shared" [%pb], %tx : (i32, i32) -> i64')
    with pytest.raises(InterpretError) as err:
        run_simt(text, np.zeros(4, np.int32))
    msg = str(err.value)
    assert "[deadlock]" in msg
    assert ("wait at ptx.mbarrier_try_wait_parity at <test>:27:5 for phase 0 (parity 0) of the "
            "mbarrier at shared offset 0 (%bar[0]) of CTA (0,0,0) to complete: 0 of 4 arrivals "
            "and 32 transaction bytes pending; it was initialised at <test>:17:5") in msg


def test_an_uninitialised_mbarrier_is_an_error():
    text = cuda_kernel(f"() -> (%Out: {OUT})", """
  %c0 = arith.constant 0 : index
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %s = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64""")
    with pytest.raises(InterpretError) as err:
        run_simt(text)
    assert "uses an mbarrier at shared offset 0 (%bar[0]) of CTA (0,0,0) that is not " \
           "initialised" in str(err.value)


def test_a_plain_store_to_a_live_mbarrier_is_an_error_until_inval():
    body = """  %z = arith.constant 0 : i64
  %one = arith.constant 1 : index
  scf.if %leader {
    cuda.store %bar, %one, %z : !tirx.buffer<2xi64, shared>, index, i64
    ptx.mbarrier_inval "shared" [%pb] : (i32) -> ()
    cuda.store %bar, %c0, %z : !tirx.buffer<2xi64, shared>, index, i64
    cuda.store %bar, %c0, %z : !tirx.buffer<2xi64, shared>, index, i64
  }
  scf.if %leader {
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
    cuda.store %bar, %c0, %z : !tirx.buffer<2xi64, shared>, index, i64
  }"""
    with pytest.raises(InterpretError) as err:
        run_simt(_kernel(body))
    msg = str(err.value)
    # %bar[1] is not the mbarrier; %bar[0] after inval is plain memory; after the second init
    # the store is refused
    assert msg.startswith("<test>:25:5: error: [mbarrier] cuda.store: writes shared offset 0 "
                          "(%bar[0]) of CTA (0,0,0), a live mbarrier (initialised at "
                          "<test>:24:5); only mbarrier ops may access it until its "
                          "ptx.mbarrier_inval"), msg


def test_reinitialising_an_mbarrier_in_use_is_an_error():
    body = """  %s = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
  scf.if %leader {
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
  }"""
    with pytest.raises(InterpretError) as err:
        run_simt(_kernel(body, count=8))
    assert "initialises the mbarrier at shared offset 0 (%bar[0]) of CTA (0,0,0) again while " \
           "its phase 0 is in use (4 of 8 arrivals and 0 transaction bytes pending)" in \
           str(err.value)


def test_mbarrier_pipeline_example_matches_numpy():
    x = np.random.default_rng(4).standard_normal(32).astype(np.float32)
    (y,), _ = run_simt((EXAMPLES / "mbarrier_pipeline.mlir").read_text(), x)
    np.testing.assert_array_equal(y, 2 * x)


def test_init_of_a_quiescent_mbarrier_starts_again_at_phase_0():
    body = """  %s = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
  scf.if %leader {
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
  }
  cuda.sync_threads
  %even = ptx.mbarrier_test_wait_parity "shared" [%pb], %p0 : (i32, i32) -> i1
""" + _store(0, "%even")
    (out,), _ = run_simt(_kernel(body))
    # 4 arrivals completed phase 0; the second init makes phase 0 the current one again
    np.testing.assert_array_equal(out[:4], 0)


def _handoff(count: int) -> str:
    """Thread 0 stores a word and arrives; warp 1 tests phase 0 once (no loop) and reads it."""
    return _kernel("""
  %data = cuda.shared_alloc align 16 : !tirx.buffer<1xf32, shared>
  %one = arith.constant 1.0 : f32
  %c32 = arith.constant 32 : index
  %w0 = arith.cmpi ult, %t, %c32 : index
  scf.if %w0 {
    scf.if %leader {
      cuda.store %data, %c0, %one : !tirx.buffer<1xf32, shared>, index, f32
      %tok = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
    }
  } else {
    %ok = ptx.mbarrier_try_wait_parity "shared" [%pb], %p0 : (i32, i32) -> i1
    %v = cuda.load %data, %c0 : !tirx.buffer<1xf32, shared>, index -> f32
  }""", count=count, threads=64)


def test_a_successful_wait_orders_the_arrivals_writes_before_the_waiters_reads():
    run_simt(_handoff(1))  # no race: the wait acquired the arrival's release


def test_a_try_wait_that_fails_acquires_nothing():
    """Count 2: thread 0's arrival leaves phase 0 incomplete, warp 1's try_wait returns false
    and its read of thread 0's store is unordered (a RAW hazard at the load)."""
    with pytest.raises(InterpretError) as err:
        run_simt(_handoff(2))
    text = str(err.value).splitlines()[0]
    assert "[race]" in text and "RAW hazard" in text and "cuda.load" in text, text
    assert "races with the write by thread (0,0,0)" in text and "(cuda.store)" in text, text
