"""PTX barriers (bar.sync, named bar.sync/bar.arrive with thread counts, barrier.cluster
arrive/wait), fences and launch-control rows on the SIMT interpreter."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.interpreter.runtime import InterpretError

MIRROR = cuda_kernel("() -> (%Out: !tirx.buffer<64xi32, global>)", """
  %c63 = arith.constant 63 : index
  %s = cuda.shared_alloc : !tirx.buffer<64xi32, shared>
  %t = cuda.thread_idx x : index
  %v = arith.index_cast %t : index to i32
  cuda.store %s, %t, %v : !tirx.buffer<64xi32, shared>, index, i32
  BARRIER
  %m = arith.subi %c63, %t : index
  %w = cuda.load %s, %m : !tirx.buffer<64xi32, shared>, index -> i32
  cuda.store %Out, %t, %w : !tirx.buffer<64xi32, global>, index, i32""",
                     "grid [1] threads [64]")


@pytest.mark.parametrize("barrier", ["ptx.bar_sync 0", "ptx.bar_sync 3", 'ptx.bar "sync" 2, 64'])
def test_bar_sync_orders_a_shared_exchange_across_warps(barrier):
    (out,), run = run_simt(MIRROR.replace("BARRIER", barrier))
    np.testing.assert_array_equal(out, 63 - np.arange(64))
    assert run.stats.total("barriers") == 1


# warps 0-1 produce into shared memory and bar.arrive on barrier 1 (96 threads: them and the
# consumer warp 2); warp 2 bar.syncs on it and reads; warp 3 does not take part
NAMED = cuda_kernel("() -> (%Out: !tirx.buffer<128xi32, global>)", """
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %s = cuda.shared_alloc : !tirx.buffer<64xi32, shared>
  %t = cuda.thread_idx x : index
  %v = arith.index_cast %t : index to i32
  %producer = arith.cmpi ult, %t, %c64 : index
  %r = scf.if %producer -> (i32) {
    %sq = arith.muli %v, %v : i32
    cuda.store %s, %t, %sq : !tirx.buffer<64xi32, shared>, index, i32
    ptx.bar "arrive" 1, COUNT
    scf.yield %v : i32
  } else {
    %consumer = arith.cmpi ult, %t, %c96 : index
    %got = scf.if %consumer -> (i32) {
      ptx.bar "sync" 1, COUNT
      %i = arith.subi %t, %c64 : index
      %x = cuda.load %s, %i : !tirx.buffer<64xi32, shared>, index -> i32
      %j = arith.addi %i, %c0 : index
      scf.yield %x : i32
    } else {
      %m = arith.constant -1 : i32
      scf.yield %m : i32
    }
    scf.yield %got : i32
  }
  cuda.store %Out, %t, %r : !tirx.buffer<128xi32, global>, index, i32""", "grid [1] threads [128]")


def test_named_barrier_producer_arrives_consumer_syncs():
    (out,), _ = run_simt(NAMED.replace("COUNT", "96"))
    t = np.arange(128)
    np.testing.assert_array_equal(out, np.where(t < 64, t, np.where(t < 96, (t - 64) ** 2, -1)))


def test_named_barrier_that_never_gets_its_count_is_a_deadlock_naming_it():
    with pytest.raises(InterpretError) as err:
        run_simt(NAMED.replace("COUNT", "128"))
    assert ("threads 64-95 of CTA (0,0,0) wait at ptx.bar at <test>:18:7 for barrier 1 of 128 "
            "threads, which only 96 threads (threads 0-95 of CTA (0,0,0)) reached") in \
        str(err.value)


def test_arriving_twice_before_the_barrier_completes_is_an_error():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<1xi32, global>)", """
  %t = cuda.thread_idx x : index
  %c32 = arith.constant 32 : index
  %first = arith.cmpi ult, %t, %c32 : index
  scf.if %first {
    ptx.bar "arrive" 1, 64
    ptx.bar "arrive" 1, 64
  } else {
    ptx.bar "sync" 1, 64
  }""", "grid [1] threads [64]")
    with pytest.raises(InterpretError, match=r"<test>:8:5: error: \[barrier\] ptx.bar: arrive at "
                                             r"barrier 1 again before it completed \(threads "
                                             r"0-31 of CTA \(0,0,0\)\)"):
        run_simt(text)


def test_a_named_barrier_larger_than_the_block_is_an_error():
    with pytest.raises(InterpretError, match="barrier 2 waits for 128 threads, but the block "
                                             "has 64"):
        run_simt(MIRROR.replace("BARRIER", 'ptx.bar "sync" 2, 128'))


# two CTAs of a cluster exchange through distributed shared memory: each writes its rank,
# arrives, waits, then reads the other CTA's value through mapa + ld.shared::cluster
CLUSTER = cuda_kernel("() -> (%Out: !tirx.buffer<64xi32, global>)", """
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1 : i32
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %s = cuda.shared_alloc : !tirx.buffer<1xi32, shared>
  %rank_index = cuda.cluster_block_rank : index
  %rank = arith.index_cast %rank_index : index to i32
  %first = arith.cmpi eq, %t, %c0 : index
  %c100 = arith.constant 100 : i32
  %mine = arith.addi %rank, %c100 : i32
  scf.if %first {
    cuda.store %s, %c0, %mine : !tirx.buffer<1xi32, shared>, index, i32
  }
  ARRIVE
  ptx.barrier_cluster "wait.acquire.aligned"
  %other = arith.xori %rank, %one : i32
  %a = cuda.address %s, %c0 : !tirx.buffer<1xi32, shared>, index -> i32
  %remote = ptx.mapa "u32" %a, %other : (i32, i32) -> i32
  %owner = ptx.getctarank "u32" %remote : (i32) -> i32
  %x = ptx.ld "shared::cluster.b32" [%remote] : (i32) -> i32
  %k = arith.muli %owner, %c100 : i32
  %y = arith.addi %x, %k : i32
  %base = arith.muli %b, %c32 : index
  %i = arith.addi %base, %t : index
  cuda.store %Out, %i, %y : !tirx.buffer<64xi32, global>, index, i32""",
                      "grid [2] threads [32] cluster [2]")
ARRIVE = 'ptx.barrier_cluster "arrive.release.aligned"'


def test_cluster_barrier_split_arrive_wait_orders_a_dsmem_exchange():
    (out,), run = run_simt(CLUSTER.replace("ARRIVE", ARRIVE))
    # CTA 0 reads CTA 1's 101 (+ owner 1 * 100); CTA 1 reads CTA 0's 100
    np.testing.assert_array_equal(out, np.repeat([201, 100], 32))
    assert run.stats.total("barriers") == 1  # one cluster-generation


def test_cluster_wait_without_arrive_is_an_error():
    with pytest.raises(InterpretError, match=r"barrier.cluster.wait without a "
                                             r"barrier.cluster.arrive before it \(threads 0-31 "
                                             r"of CTAs \(0,0,0\), \(1,0,0\)\)"):
        run_simt(CLUSTER.replace("ARRIVE", ""))
    with pytest.raises(InterpretError, match="barrier.cluster.arrive again before"):
        run_simt(CLUSTER.replace("ARRIVE", ARRIVE + "\n  " + ARRIVE))


def test_fences_and_launch_control_run_as_no_ops():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<128xi32, global>)", """
  %t = cuda.thread_idx x : index
  %v = arith.index_cast %t : index to i32
  ptx.fence "sc.cta"
  ptx.fence "acq_rel.gpu"
  ptx.fence_proxy_async "shared::cta"
  ptx.fence_mbarrier_init
  ptx.griddepcontrol "wait"
  ptx.griddepcontrol "launch_dependents"
  ptx.setmaxnreg "inc" 240
  cuda.store %Out, %t, %v : !tirx.buffer<128xi32, global>, index, i32""",
                       "grid [1] threads [128] cluster [1]")  # setmaxnreg: whole warpgroups
    (out,), run = run_simt(text)
    np.testing.assert_array_equal(out, np.arange(128))
    assert run.stats.thread_instructions == 11 * 128  # every op ran, on every lane
