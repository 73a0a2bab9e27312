"""``setmaxnreg`` on the SIMT interpreter (interpreter/ptx_registers.py): warpgroup-collective,
``dec``/``inc`` against the warpgroup's count when the kernel fixes its registers at launch
(``cuda.max_registers``), ``inc`` waiting on the CTA's pool until a ``dec`` fills it."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_async import spin_wait
from tirx_mlir.interpreter.runtime import InterpretError

# warpgroup 0 (threads 0-127) is the consumer, warpgroup 1 the producer; each writes its id
ROLES = """
  %c128 = arith.constant 128 : index
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %v = arith.index_cast %wg : index to i32
  %consumer = arith.cmpi eq, %wg, %c0 : index
  scf.if %consumer {
    CONSUMER
    cuda.store %Out, %t, %v : !tirx.buffer<256xi32, global>, index, i32
  } else {
    PRODUCER
    cuda.store %Out, %t, %v : !tirx.buffer<256xi32, global>, index, i32
  }"""


def _kernel(consumer: str, producer: str, entry: int | None = 80) -> str:
    attrs = "" if entry is None else f" attributes {{cuda.max_registers = {entry} : i64}}"
    body = "  %c0 = arith.constant 0 : index" + \
        ROLES.replace("CONSUMER", consumer).replace("PRODUCER", producer)
    return cuda_kernel("() -> (%Out: !tirx.buffer<256xi32, global>)", body,
                       "grid [2] threads [256]", attrs=attrs)


def test_the_producer_gives_what_the_consumer_takes():
    (out,), _ = run_simt(_kernel('ptx.setmaxnreg "inc" 136', 'ptx.setmaxnreg "dec" 24'))
    np.testing.assert_array_equal(out, np.arange(256) // 128)


def test_an_inc_the_pool_never_covers_is_a_deadlock_that_says_so():
    # the producer gives back 80 - 40 = 40 per thread, the consumer asks 136 - 80 = 56
    with pytest.raises(InterpretError, match=r"7168 registers from the CTA's pool, which holds "
                                             r"5120 \(setmaxnreg.inc 136\)"):
        run_simt(_kernel('ptx.setmaxnreg "inc" 136', 'ptx.setmaxnreg "dec" 40'))


@pytest.mark.parametrize("consumer, producer, message", [
    ('ptx.setmaxnreg "inc" 72', 'ptx.setmaxnreg "dec" 24',
     r"setmaxnreg.inc to 72 registers per thread, fewer than the warpgroup holds \(80\) "
     r"\(threads 0-127 of CTAs"),
    ('ptx.setmaxnreg "inc" 136', 'ptx.setmaxnreg "dec" 96',
     r"setmaxnreg.dec to 96 registers per thread, more than the warpgroup holds \(80\) "
     r"\(threads 128-255 of CTAs")])
def test_dec_above_or_inc_below_the_count_is_a_located_error(consumer, producer, message):
    with pytest.raises(InterpretError, match=message) as err:
        run_simt(_kernel(consumer, producer))
    assert "ptx.setmaxnreg" in str(err.value)


def test_without_a_launch_count_only_the_collective_rule_holds():
    # no cuda.max_registers: ptxas ignores setmaxnreg (C7508), the counts are not accounted
    (out,), _ = run_simt(_kernel('ptx.setmaxnreg "inc" 136', 'ptx.setmaxnreg "dec" 96', None))
    np.testing.assert_array_equal(out, np.arange(256) // 128)


def test_part_of_a_warpgroup_is_a_located_collective_error():
    # warps 0-1 of warpgroup 0 run it, warps 2-3 do not
    text = cuda_kernel("() -> (%Out: !tirx.buffer<128xi32, global>)", """
  %c64 = arith.constant 64 : index
  %t = cuda.thread_idx x : index
  %low = arith.cmpi ult, %t, %c64 : index
  scf.if %low {
    ptx.setmaxnreg "dec" 24
  }
  %v = arith.index_cast %t : index to i32
  cuda.store %Out, %t, %v : !tirx.buffer<128xi32, global>, index, i32""",
                       "grid [1] threads [128]", attrs=" attributes {cuda.max_registers = 80 : i64}")
    with pytest.raises(InterpretError, match=r"ptx.setmaxnreg is warpgroup-collective "
                                             r".*some do not \(threads 64-127"):
        run_simt(text)


def _handoff_after_inc(dec: int = 24) -> str:
    """The consumer's ``inc`` blocks first (empty pool); the producer's ``dec`` fills the pool,
    then the producer spins on an mbarrier the consumer arrives at only after its ``inc``."""
    return cuda_kernel("() -> (%Out: !tirx.buffer<256xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %true = arith.constant true
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
  }}
  cuda.sync_threads
  %wg = arith.divui %t, %c128 : index
  %v = arith.index_cast %wg : index to i32
  %consumer = arith.cmpi eq, %wg, %c0 : index
  scf.if %consumer {{
    ptx.setmaxnreg "inc" 136
    scf.if %leader {{
      %tok = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
    }}
  }} else {{
    ptx.setmaxnreg "dec" {dec}
{spin_wait(op="test_wait", indent="    ")}
  }}
  cuda.store %Out, %t, %v : !tirx.buffer<256xi32, global>, index, i32""",
                       "grid [1] threads [256]",
                       attrs=" attributes {cuda.max_registers = 80 : i64}")


def test_an_inc_the_pool_covers_wakes_while_another_group_polls():
    """Regression: a group blocked in ``inc`` was woken only when no group was ready, so a
    producer polling an mbarrier the consumer arrives at after its ``inc`` spun forever (the
    step budget bounds this test if it comes back)."""
    (out,), _ = run_simt(_handoff_after_inc(), max_steps=20_000)
    np.testing.assert_array_equal(out, np.arange(256) // 128)


def test_an_inc_the_pool_never_covers_while_another_group_polls_is_a_located_deadlock():
    # the producer gives back 80 - 40 = 40 per thread, the consumer asks 56: the producer's
    # spin is idle and the inc never holds: the deadlock error names both, well within budget
    with pytest.raises(InterpretError, match=r"deadlock.*7168 registers from the CTA's pool, "
                                             r"which holds 5120 \(setmaxnreg.inc 136\)"):
        run_simt(_handoff_after_inc(dec=40), max_steps=20_000)


def _twice(between: str) -> str:
    """Warpgroup 0 runs ``setmaxnreg.dec`` twice, with ``between`` in between."""
    return cuda_kernel("() -> (%Out: !tirx.buffer<128xi32, global>)", f"""
  %t = cuda.thread_idx x : index
  ptx.setmaxnreg "dec" 72
  {between}
  ptx.setmaxnreg "dec" 64
  %v = arith.index_cast %t : index to i32
  cuda.store %Out, %t, %v : !tirx.buffer<128xi32, global>, index, i32""",
                       "grid [1] threads [128]", attrs=" attributes {cuda.max_registers = 80 : i64}")


@pytest.mark.parametrize("between", ["cuda.sync_threads",
                                     "cuda.sync_warpgroup barrier 1"])
def test_two_setmaxnreg_with_a_barrier_between_run(between):
    (out,), _ = run_simt(_twice(between))
    np.testing.assert_array_equal(out, np.arange(128))


@pytest.mark.parametrize("between", ["", "%m = arith.constant -1 : i32\n  cuda.sync_warp %m : i32"])
def test_two_setmaxnreg_without_a_barrier_between_are_a_located_error(between):
    # PTX ISA, setmaxnreg: after one, all warps of the warpgroup must synchronise explicitly
    # before a subsequent one (a __syncwarp orders one warp only); before: not checked
    with pytest.raises(InterpretError, match=r"a warpgroup's warps must "
                                             r"synchronise between two of its setmaxnreg .*"
                                             r"\(threads 0-127 of CTA") as err:
        run_simt(_twice(between))
    second = 6 + between.count("\n")  # the second setmaxnreg's line
    assert str(err.value).startswith(f"<test>:{second}:3: error: [setmaxnreg] ptx.setmaxnreg")


def _twice_mbarrier(count: int, arrive: str, before: str = "") -> str:
    """`_twice` synchronised through an mbarrier of ``count`` arrivals: the threads for which
    ``arrive`` (an i1 of ``%t``) holds arrive on it after the first ``setmaxnreg`` (or
    ``before`` it: "before"), then every thread waits for phase 0."""
    arrival = f"""  scf.if {arrive} {{
    %tok = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
  }}"""
    return cuda_kernel("() -> (%Out: !tirx.buffer<128xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %count = arith.constant {count} : i32
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %t = cuda.thread_idx x : index
  %all = arith.cmpi sge, %t, %c0 : index
  %warp0 = arith.cmpi slt, %t, %c32 : index
  %lane = arith.remui %t, %c32 : index
  %lane0 = arith.cmpi eq, %lane, %c0 : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %count : (i32, i32) -> ()
  }}
  cuda.sync_threads
{arrival if before else ""}
  ptx.setmaxnreg "dec" 72
{"" if before else arrival}
{spin_wait()}
  ptx.setmaxnreg "dec" 64
  %v = arith.index_cast %t : index to i32
  cuda.store %Out, %t, %v : !tirx.buffer<128xi32, global>, index, i32""",
                       "grid [1] threads [128]", attrs=" attributes {cuda.max_registers = 80 : i64}")


@pytest.mark.parametrize("count,arrive", [(128, "%all"), (4, "%lane0")])
def test_a_wait_on_a_phase_every_warp_arrived_on_synchronises_the_warpgroup(count, arrive):
    """Every warp (all threads, or lane 0 of each) arrives after the first ``setmaxnreg``
    and every thread waits for the phase: each warp runs after all 4 warps' first one, as
    after a barrier. Before: a located [setmaxnreg] error (only barriers counted)."""
    (out,), _ = run_simt(_twice_mbarrier(count, arrive))
    np.testing.assert_array_equal(out, np.arange(128))


@pytest.mark.parametrize("count,arrive,before", [(32, "%warp0", ""), (128, "%all", "before")])
def test_a_wait_on_a_phase_not_every_warp_arrived_on_after_setmaxnreg_is_an_error(count, arrive,
                                                                                   before):
    """A phase only warp 0 arrived on (its completion says nothing of warps 1-3), or one whose
    arrivals all came before the first ``setmaxnreg``, orders no warp after the others'
    ``setmaxnreg``: the second one is the located error, naming the whole warpgroup."""
    with pytest.raises(InterpretError, match=r"synchronise between two of its setmaxnreg .*"
                                             r"\(threads 0-127 of CTA") as err:
        run_simt(_twice_mbarrier(count, arrive, before))
    assert "[setmaxnreg] ptx.setmaxnreg" in str(err.value)
