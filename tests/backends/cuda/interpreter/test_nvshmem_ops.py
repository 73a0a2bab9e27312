"""nvshmem on N simulated PEs: the ring example (2 and 4 PEs) against numpy, puts and gets of
every group with per-PE data, signals and point-to-point waits across PEs, barrier_all, and the
errors (a PE that does not exist, a block-group call from part of a block, a barrier some PE
never reaches)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLES = Path(__file__).parents[4] / "examples" / "cuda"
F = "!tirx.buffer<256xi32, global>"
SIG = "!tirx.buffer<1xi64, global>"


@pytest.mark.parametrize("pes", [2, 4])
def test_ring_example_delivers_every_pes_data_and_signal(pes):
    send = np.random.default_rng(pes).standard_normal(1024).astype(np.float32)
    _, run = run_simt((EXAMPLES / "nvshmem_ring.mlir").read_text(), send,
                      np.zeros(1024, np.float32), np.zeros(1, np.int64), pes=pes)
    assert len(run.outputs_per_pe) == pes
    for recv, sig in run.outputs_per_pe:
        np.testing.assert_array_equal(recv, send)
        assert sig.tolist() == [1]


def _shift_kernel(op: str, group: str, threads: int, step: int) -> str:
    # Stage = In + 1000 * my_pe on every PE; then `op` moves Stage between this PE and
    # (my_pe + step) mod n_pes into Recv; barrier_all; Out = Recv
    return cuda_kernel(f"(%In: {F}) -> (%Stage: {F}, %Recv: {F})", f"""
  %c0 = arith.constant 0 : index
  %n = arith.constant 256 : index
  %step = arith.constant {step} : i32
  %thousand = arith.constant 1000 : i32
  %t = cuda.thread_idx x : index
  %me = nvshmem.my_pe : i32
  %np = nvshmem.n_pes : i32
  %add = arith.muli %me, %thousand : i32
  %c{threads} = arith.constant {threads} : index
  scf.for %i = %t to %n step %c{threads} {{
    %x = cuda.load %In, %i : {F}, index -> i32
    %y = arith.addi %x, %add : i32
    cuda.store %Stage, %i, %y : {F}, index, i32
  }}
  cuda.sync_threads
  nvshmem.barrier_all group block
  %p1 = arith.addi %me, %step : i32
  %peer = arith.remsi %p1, %np : i32
  {op}
  nvshmem.barrier_all group block""", f"grid [1] threads [{threads}]")


@pytest.mark.parametrize("group,threads", [("thread", 1), ("warp", 32), ("block", 64)])
@pytest.mark.parametrize("pes", [2, 3])
def test_put_sends_this_pes_data_to_the_peer(group, threads, pes):
    x = np.arange(256, dtype=np.int32)
    op = f"nvshmem.put %Recv, %Stage, %n, %peer group {group} : {F}, {F}, index, i32"
    if group == "thread":
        op = op.replace(f" group {group}", "")
    _, run = run_simt(_shift_kernel(op, group, threads, 1), x, pes=pes)
    for p, (stage, recv) in enumerate(run.outputs_per_pe):
        np.testing.assert_array_equal(stage, x + 1000 * p)
        np.testing.assert_array_equal(recv, x + 1000 * ((p - 1) % pes))


def test_get_fetches_the_peers_data():
    x = np.arange(256, dtype=np.int32)
    op = f"nvshmem.get %Recv, %Stage, %n, %peer group warp nbi : {F}, {F}, index, i32"
    _, run = run_simt(_shift_kernel(op, "warp", 32, 1), x, pes=4)
    for p, (_, recv) in enumerate(run.outputs_per_pe):
        np.testing.assert_array_equal(recv, x + 1000 * ((p + 1) % 4))


def test_a_put_to_a_pe_that_does_not_exist_is_an_error():
    op = (f"%bad = arith.constant 5 : i32\n"
          f"  nvshmem.put %Recv, %Stage, %n, %bad : {F}, {F}, index, i32")
    with pytest.raises(InterpretError) as err:
        run_simt(_shift_kernel(op, "thread", 1, 1), np.zeros(256, np.int32), pes=2)
    assert "PE 5 does not exist: the run has 2 PE(s) (thread (0,0,0) of CTA (0,0,0) on PE 0)" \
        in str(err.value)


def test_a_block_group_put_from_part_of_the_block_is_an_error():
    op = f"""%half = arith.constant 32 : index
  %low = arith.cmpi ult, %t, %half : index
  scf.if %low {{
    nvshmem.put %Recv, %Stage, %n, %peer group block : {F}, {F}, index, i32
  }}"""
    with pytest.raises(InterpretError) as err:
        run_simt(_shift_kernel(op, "block", 64, 1), np.zeros(256, np.int32), pes=2)
    assert "nvshmem.put group block is called by threads 0-31 of CTA (0,0,0) on PE 0 but not " \
           "by threads 32-63 of CTA (0,0,0) on PE 0; every thread of the block calls it" in \
           str(err.value)


def _signal_kernel(wait: str) -> str:
    # PE 0 sets PE 1's flag to 7 (signal_op) and adds 5 to its own; PE 1 waits for it
    return cuda_kernel(f"() -> (%Flag: {SIG}, %Out: {SIG})", f"""
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %seven = arith.constant 7 : i64
  %five = arith.constant 5 : i64
  %me = nvshmem.my_pe : i32
  %first = arith.cmpi eq, %me, %zero : i32
  scf.if %first {{
    nvshmem.signal_op set %Flag, %seven, %one : {SIG}, i64, i32
    nvshmem.signal_op add %Flag, %five, %zero : {SIG}, i64, i32
    nvshmem.quiet
  }} else {{
    {wait}
  }}""", "grid [1] threads [1]")


def test_signal_wait_until_sees_the_other_pes_signal():
    wait = (f"%seen = nvshmem.signal_wait_until eq %Flag, %seven : {SIG}, i64 -> i64\n"
            f"    cuda.store %Out, %c0, %seen : {SIG}, index, i64")
    _, run = run_simt(_signal_kernel(wait), np.zeros(1, np.int64), np.zeros(1, np.int64),
                      pes=2)
    (flag0, _), (flag1, out1) = run.outputs_per_pe
    assert flag0.tolist() == [5] and flag1.tolist() == [7] and out1.tolist() == [7]


def test_wait_until_on_a_value_never_written_is_a_deadlock_naming_the_variable():
    wait = f"nvshmem.wait_until gt %Flag, %seven : {SIG}, i64"
    with pytest.raises(InterpretError) as err:
        run_simt(_signal_kernel(wait), np.zeros(1, np.int64), np.zeros(1, np.int64), pes=2)
    assert "thread (0,0,0) of CTA (0,0,0) on PE 1 wait at nvshmem.wait_until at <test>:15:5 " \
           "for %Flag[0] to be gt 7 (it holds 7 on PE 1)" in str(err.value)


def test_a_barrier_one_pe_never_reaches_is_a_deadlock_naming_the_pe():
    text = cuda_kernel(f"() -> (%Out: {SIG})", """
  %zero = arith.constant 0 : i32
  %me = nvshmem.my_pe : i32
  %first = arith.cmpi eq, %me, %zero : i32
  scf.if %first {
    nvshmem.barrier_all
  }""", "grid [1] threads [1]")
    with pytest.raises(InterpretError) as err:
        run_simt(text, pes=3)
    assert "for the nvshmem.barrier_all, which PE 1, 2 never reach" in str(err.value)


def test_put_signal_with_sync_all_and_fence():
    # thread-group put_signal (set 9) to the next PE, fence, then sync_all by one thread a PE
    x = np.arange(256, dtype=np.int32)
    op = (f"nvshmem.put_signal set %Recv, %Stage, %n, %Flag, %nine, %peer : {F}, {F}, index, "
          f"{SIG}, i64, i32\n  nvshmem.fence\n  nvshmem.sync_all")
    text = _shift_kernel(op, "thread", 1, 1).replace(
        f"-> (%Stage: {F}, %Recv: {F})", f"-> (%Stage: {F}, %Recv: {F}, %Flag: {SIG})").replace(
        "  %c0 = arith.constant 0 : index", "  %c0 = arith.constant 0 : index\n"
                                            "  %nine = arith.constant 9 : i64")
    _, run = run_simt(text, x, pes=2)
    for p, (_, recv, flag) in enumerate(run.outputs_per_pe):
        np.testing.assert_array_equal(recv, x + 1000 * ((p - 1) % 2))
        assert flag.tolist() == [9]


def test_get_into_shared_memory():
    # one thread per PE gets the next PE's In (its own copy: In + my_pe is not symmetric, so
    # stage it first) into a shared array, then stores it
    text = cuda_kernel(f"(%In: {F}) -> (%Stage: {F}, %Out: {F})", f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 256 : index
  %one = arith.constant 1 : i32
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<256xi32, shared>
  %me = nvshmem.my_pe : i32
  %np = nvshmem.n_pes : i32
  scf.for %i = %c0 to %n step %c1 {{
    %x = cuda.load %In, %i : {F}, index -> i32
    %y = arith.addi %x, %me : i32
    cuda.store %Stage, %i, %y : {F}, index, i32
  }}
  nvshmem.barrier_all
  %p1 = arith.addi %me, %one : i32
  %peer = arith.remsi %p1, %np : i32
  nvshmem.get %sm, %Stage, %n, %peer : !tirx.buffer<256xi32, shared>, {F}, index, i32
  scf.for %i = %c0 to %n step %c1 {{
    %v = cuda.load %sm, %i : !tirx.buffer<256xi32, shared>, index -> i32
    cuda.store %Out, %i, %v : {F}, index, i32
  }}""", "grid [1] threads [1]")
    x = np.arange(256, dtype=np.int32) * 2
    _, run = run_simt(text, x, pes=3)
    for p, (_, out) in enumerate(run.outputs_per_pe):
        np.testing.assert_array_equal(out, x + (p + 1) % 3)
