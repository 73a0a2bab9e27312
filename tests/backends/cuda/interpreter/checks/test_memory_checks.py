"""The memory module's checks on shared accesses (issue #10 part 3), as a kernel author meets
them: a misaligned vector access, an access past the CTA's arena, dynamic shared memory used
beyond what the launch declared."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.interpreter.runtime import InterpretError

SHARED = "!tirx.buffer<32xf32, shared>"
ARENA_HINT = "hint: check the index arithmetic, or declare more dynamic shared memory"


def _error(body: str, **options) -> str:
    text = cuda_kernel("() -> (%Out: !tirx.buffer<32xf32, global>)",
                       f"  %s = cuda.shared_alloc : {SHARED}\n  %t = cuda.thread_idx x : index\n"
                       + body, target="cuda -arch=sm_80")
    with pytest.raises(InterpretError) as err:
        run_simt(text, **options)
    return str(err.value)


def test_a_16_byte_shared_access_off_a_16_byte_boundary():
    msg = _error(f"""
  %c1 = arith.constant 1 : index
  %p = cuda.address %s, %c1 : {SHARED}, index -> i32
  %v:4 = ptx.ld "shared.v4.f32" [%p] : (i32) -> (f32, f32, f32, f32)""")
    assert msg == (
        "<test>:7:3: error: ptx.ld: misaligned 16-byte access at address 0x4 (a 16-byte access "
        "must be 16-byte aligned), by threads 0-31 of CTA (0,0,0)\n"
        "hint: align the index to the access size")


def test_a_shared_access_past_the_arena():
    msg = _error(f"""
  %c31 = arith.constant 31 : index
  %four = arith.constant 4 : i32
  %p = cuda.address %s, %c31 : {SHARED}, index -> i32
  %past = arith.addi %p, %four : i32
  %v = ptx.ld "shared.f32" [%past] : (i32) -> f32""")
    assert msg == (
        "<test>:9:3: error: ptx.ld: out-of-bounds shared access: 4 bytes at shared offset 128, "
        "but the CTA has 128 bytes of shared memory (static arrays + the dynamic arena the "
        "launch declared), by threads 0-31 of CTA (0,0,0)\n" + ARENA_HINT)


def test_dynamic_shared_memory_beyond_what_the_launch_declared():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<32xf32, global>)", """
  %d = cuda.dynamic_shared offset 0 align 16 : !tirx.buffer<64xf32, shared.dyn>
  %t = cuda.thread_idx x : index
  %c32 = arith.constant 32 : index
  %i = arith.addi %t, %c32 : index
  %one = arith.constant 1.0 : f32
  cuda.store %d, %i, %one : !tirx.buffer<64xf32, shared.dyn>, index, f32""",
                       target="cuda -arch=sm_80")
    run_simt(text)  # by default the arena spans the views: 64 floats
    with pytest.raises(InterpretError) as err:
        run_simt(text, dynamic_shared_bytes=128)
    assert str(err.value) == (
        "<test>:8:3: error: cuda.store: out-of-bounds shared access: 4 bytes at shared offset "
        "128, but the CTA has 128 bytes of shared memory (static arrays + the dynamic arena the "
        "launch declared), by threads 0-31 of CTA (0,0,0)\n" + ARENA_HINT)


def test_checked_accesses_reach_no_observer():
    """A rejected access is neither counted nor recorded: the run stops at it."""
    text = cuda_kernel("() -> (%Out: !tirx.buffer<32xf32, global>)", f"""
  %s = cuda.shared_alloc : {SHARED}
  %t = cuda.thread_idx x : index
  %one = arith.constant 1.0 : f32
  cuda.store %s, %t, %one : {SHARED}, index, f32
  %v = cuda.load %s, %t : {SHARED}, index -> f32
  cuda.store %Out, %t, %v : !tirx.buffer<32xf32, global>, index, f32""",
                       target="cuda -arch=sm_80")
    (out,), run = run_simt(text)
    np.testing.assert_array_equal(out, np.ones(32, np.float32))
    assert run.stats.total("shared_requests") == 2 and run.stats.bank_conflicts == 0
