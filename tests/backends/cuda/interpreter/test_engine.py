"""The SIMT engine: lanes, divergence and reconvergence, loops with per-lane bounds, barriers
(divergent, never reached), the step budget; examples against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLES = Path(__file__).parents[4] / "examples" / "cuda"

F32x32 = "!tirx.buffer<32xf32, global>"
I32x32 = "!tirx.buffer<32xi32, global>"


def test_vector_add_matches_numpy():
    a = np.random.default_rng(0).standard_normal(65536).astype(np.float32)
    b = np.random.default_rng(1).standard_normal(65536).astype(np.float32)
    (c,), run = run_simt((EXAMPLES / "vector_add.mlir").read_text(), a, b)
    np.testing.assert_array_equal(c, a + b)
    assert run.stats.ctas == 64
    assert run.stats.thread_instructions == 18 * 64 * 256  # 18 ops (with tirx.return), every lane


def test_transpose_matches_numpy():
    x = np.random.default_rng(2).standard_normal(1024 * 1024).astype(np.float32)
    (y,), _ = run_simt((EXAMPLES / "transpose.mlir").read_text(), x)
    np.testing.assert_array_equal(y.reshape(1024, 1024), x.reshape(1024, 1024).T)


def _lane_kernel(body: str, launch: str = "grid [1] threads [32]") -> str:
    return cuda_kernel(f"() -> (%Out: {I32x32})", "  %c0 = arith.constant 0 : index\n"
                       "  %t = cuda.thread_idx x : index\n" + body, launch)


def test_divergent_if_merges_results_per_lane():
    text = _lane_kernel("""
  %c10 = arith.constant 10 : index
  %small = arith.cmpi ult, %t, %c10 : index
  %r = scf.if %small -> (index) {
    %a = arith.addi %t, %c10 : index
    scf.yield %a : index
  } else {
    %b = arith.muli %t, %t : index
    scf.yield %b : index
  }
  %v = arith.index_cast %r : index to i32
  cuda.store %Out, %t, %v : !tirx.buffer<32xi32, global>, index, i32""")
    (out,), _ = run_simt(text)
    t = np.arange(32)
    np.testing.assert_array_equal(out, np.where(t < 10, t + 10, t * t))


def test_loop_with_per_lane_bounds_reconverges():
    # lane t sums 0..t-1: each lane leaves the loop at its own bound
    text = _lane_kernel("""
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %t step %c1 iter_args(%acc = %c0) -> (index) {
    %n = arith.addi %acc, %i : index
    scf.yield %n : index
  }
  %v = arith.index_cast %s : index to i32
  cuda.store %Out, %t, %v : !tirx.buffer<32xi32, global>, index, i32""")
    (out,), _ = run_simt(text)
    t = np.arange(32)
    np.testing.assert_array_equal(out, t * (t - 1) // 2)


def test_while_loop_per_lane_trip_counts():
    # the number of halvings until t reaches 0
    text = _lane_kernel("""
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = scf.while (%x = %t, %n = %c0) : (index, index) -> (index, index) {
    %go = arith.cmpi ne, %x, %c0 : index
    scf.condition(%go) %x, %n : index, index
  } do {
  ^bb0(%x2: index, %n2: index):
    %h = arith.divui %x2, %c2 : index
    %m = arith.addi %n2, %c1 : index
    scf.yield %h, %m : index, index
  }
  %v = arith.index_cast %r#1 : index to i32
  cuda.store %Out, %t, %v : !tirx.buffer<32xi32, global>, index, i32""")
    (out,), _ = run_simt(text)
    expected = [int(t).bit_length() for t in range(32)]
    np.testing.assert_array_equal(out, expected)


def test_shared_memory_exchange_across_warps_through_a_barrier():
    # each thread writes its id, then reads its mirror's after __syncthreads
    text = cuda_kernel("() -> (%Out: !tirx.buffer<64xi32, global>)", """
  %c63 = arith.constant 63 : index
  %s = cuda.shared_alloc : !tirx.buffer<64xi32, shared>
  %t = cuda.thread_idx x : index
  %v = arith.index_cast %t : index to i32
  cuda.store %s, %t, %v : !tirx.buffer<64xi32, shared>, index, i32
  cuda.sync_threads
  %m = arith.subi %c63, %t : index
  %w = cuda.load %s, %m : !tirx.buffer<64xi32, shared>, index -> i32
  cuda.store %Out, %t, %w : !tirx.buffer<64xi32, global>, index, i32""",
                       "grid [1] threads [64]")
    (out,), run = run_simt(text)
    np.testing.assert_array_equal(out, 63 - np.arange(64))
    assert run.stats.total("barriers") == 1


def test_divergent_syncthreads_is_an_error_naming_both_barriers():
    text = _lane_kernel("""
  %c16 = arith.constant 16 : index
  %low = arith.cmpi ult, %t, %c16 : index
  scf.if %low {
    cuda.sync_threads
  } else {
    cuda.sync_threads
  }""")
    with pytest.raises(InterpretError) as err:
        run_simt(text)
    msg = str(err.value)
    assert ("divergent __syncthreads: threads 16-31 of CTA (0,0,0) reached this barrier, but "
            "threads 0-15 of CTA (0,0,0) wait at the one at <test>:8:5") in msg


def test_barrier_that_half_the_block_never_reaches_is_a_deadlock_error():
    text = _lane_kernel("""
  %c16 = arith.constant 16 : index
  %low = arith.cmpi ult, %t, %c16 : index
  scf.if %low {
    cuda.sync_threads
  }""")
    with pytest.raises(InterpretError) as err:
        run_simt(text)
    msg = str(err.value)
    assert ("deadlock, no thread can make progress: threads 0-15 of CTA (0,0,0) wait at "
            "cuda.sync_threads at <test>:8:5 for the cta barrier, which threads 16-31 of "
            "CTA (0,0,0) never reach") in msg


def test_out_of_bounds_and_misaligned_accesses_name_the_threads():
    oob = _lane_kernel("""
  %c1 = arith.constant 1 : index
  %i = arith.addi %t, %c1 : index
  %v = arith.constant 7 : i32
  cuda.store %Out, %i, %v : !tirx.buffer<32xi32, global>, index, i32""")
    with pytest.raises(InterpretError, match=r"out of bounds.*\(thread \(31,0,0\) of CTA \(0,0,0\)\)"):
        run_simt(oob)
    misaligned = cuda_kernel(f"(%In: {F32x32}) -> (%Out: {F32x32})", """
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %p = cuda.address %In, %c1 : !tirx.buffer<32xf32, global>, index -> i64
  %v:4 = ptx.ld "global.v4.f32" [%p] : (i64) -> (f32, f32, f32, f32)""")
    with pytest.raises(InterpretError, match="misaligned 16-byte access"):
        run_simt(misaligned, np.zeros(32, np.float32))


def test_global_access_past_a_buffer_names_it():
    text = cuda_kernel(f"(%In: {F32x32}) -> (%Out: {F32x32})", """
  %c1 = arith.constant 1 : index
  %t = cuda.thread_idx x : index
  %i = arith.addi %t, %c1 : index
  %p = cuda.address %In, %i : !tirx.buffer<32xf32, global>, index -> i64
  %v = ptx.ld "global.f32" [%p] : (i64) -> f32""")
    with pytest.raises(InterpretError, match=r"out-of-bounds global access: 4 bytes .* of %In "
                                             r"\(128 bytes\), 4 bytes past its end"):
        run_simt(text, np.zeros(32, np.float32))


def test_endless_loop_stops_at_the_step_budget():
    text = _lane_kernel("""
  %true = arith.constant true
  scf.while () : () -> () {
    scf.condition(%true)
  } do {
    scf.yield
  }""")
    from tirx_mlir.backends.cuda.interpreter import executor
    from tirx_mlir.interpreter import KernelRunner
    from tirx_mlir.located_parser import parse_module

    runner = KernelRunner(parse_module(text, "<test>"), max_steps=10_000)
    with pytest.raises(InterpretError, match="budget of 10,000 steps"):
        runner()
    assert executor.last_run(runner.interpreter) is None


def test_fresh_shared_memory_reads_as_nan():
    text = cuda_kernel(f"() -> (%Out: {F32x32})", """
  %s = cuda.shared_alloc : !tirx.buffer<32xf32, shared>
  %t = cuda.thread_idx x : index
  %v = cuda.load %s, %t : !tirx.buffer<32xf32, shared>, index -> f32
  cuda.store %Out, %t, %v : !tirx.buffer<32xf32, global>, index, f32""")
    (out,), _ = run_simt(text)
    assert np.isnan(out).all()


def test_clusters_run_together_in_one_wave():
    from tirx_mlir.backends.cuda.interpreter.executor import cta_order

    order = cta_order((4, 2, 1), (2, 2, 1))
    assert order.tolist() == [0, 1, 4, 5, 2, 3, 6, 7]


def test_launch_shape_can_be_overridden_like_a_host_launch():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<64xi32, global>)", """
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %n = cuda.block_dim x : index
  %base = arith.muli %b, %n : index
  %i = arith.addi %base, %t : index
  %v = arith.index_cast %i : index to i32
  cuda.store %Out, %i, %v : !tirx.buffer<64xi32, global>, index, i32""")
    (out,), run = run_simt(text, grid=(4,), block=(16,))
    np.testing.assert_array_equal(out, np.arange(64))
    assert run.stats.ctas == 4
    with pytest.raises(ValueError, match="grid must be 1 to 3 positive integers"):
        run_simt(text, grid=(0,))


def test_a_huge_launch_is_refused_or_walked_lazily():
    body = """
  %t = cuda.thread_idx x : index"""
    from xdsl.utils.exceptions import ParseError

    from tirx_mlir.dialects.tirx.kernel import int_array
    from tirx_mlir.interpreter import KernelRunner
    from tirx_mlir.located_parser import parse_module

    big = cuda_kernel("() -> (%Out: !tirx.buffer<1xi32, global>)", body, "grid [1] threads [2048]")
    with pytest.raises(ParseError, match="2048 threads per block; the target"):
        parse_module(big, "<test>")  # the target's limit, at parse time
    # a kernel given 2048 threads after parsing: the interpreter refuses the launch itself
    module = parse_module(big.replace("threads [2048]", "threads [1024]"), "<test>")
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    kernel.properties["threads"] = int_array([2048])
    with pytest.raises(InterpretError, match="2048 threads; CUDA blocks have at most 1024"):
        KernelRunner(module)()
    # 2^31 CTAs: waves are made one at a time, so the run stops at its step budget

    text = cuda_kernel("() -> (%Out: !tirx.buffer<1xi32, global>)", body,
                       "grid [2147483648] threads [1]")
    runner = KernelRunner(parse_module(text, "<test>"), max_steps=100_000)
    with pytest.raises(InterpretError, match="budget of 100,000 steps"):
        runner()
