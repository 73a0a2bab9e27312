"""``tirx.alloc`` at the CUDA level on the SIMT interpreter: every thread has its own local
array (fresh contents NaN / -1), read and written at constant or per-thread indices with
bounds-checked, located errors; a tirx.alloc in shared is a static shared array of the CTA."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.diagnostics import op_location
from tirx_mlir.interpreter.runtime import InterpretError
from tirx_testing.simt import cuda_kernel, run_simt

F32x64 = "!tirx.buffer<64xf32, global>"


def test_each_thread_has_its_own_array():
    """Every lane writes its id at its own (dynamic) slot and its double at a constant one;
    each reads back only its own values, through scalar and vector accesses."""
    text = cuda_kernel(f"(%In: {F32x64}) -> (%Out: !tirx.buffer<256xf32, global>)", """
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = cuda.thread_idx x : index
  %r = tirx.alloc : !tirx.buffer<4xf32, local>
  %x = cuda.load %In, %t : !tirx.buffer<64xf32, global>, index -> f32
  %slot = arith.andi %t, %c3 : index
  cuda.store %r, %slot, %x : !tirx.buffer<4xf32, local>, index, f32
  %again = cuda.load %r, %slot : !tirx.buffer<4xf32, local>, index -> f32
  %d = arith.addf %again, %again : f32
  %pair = cuda.load %r, %c0 : !tirx.buffer<4xf32, local>, index -> vector<2xf32>
  cuda.store %r, %c2, %pair : !tirx.buffer<4xf32, local>, index, vector<2xf32>
  cuda.store %r, %c0, %d : !tirx.buffer<4xf32, local>, index, f32
  %all = cuda.load %r, %c0 : !tirx.buffer<4xf32, local>, index -> vector<4xf32>
  %o = arith.muli %t, %c4 : index
  cuda.store %Out, %o, %all : !tirx.buffer<256xf32, global>, index, vector<4xf32>""",
                       launch="grid [1] threads [64]")
    x = np.arange(64, dtype=np.float32) + 1
    (out,), _ = run_simt(text, x)
    got = out.reshape(64, 4)
    slot = np.arange(64) % 4
    nan = np.float32(np.nan)
    want = np.full((64, 4), nan, dtype=np.float32)
    want[np.arange(64), slot] = x                       # the lane's own write
    want[:, 2:4] = want[:, 0:2]                          # the vector copy
    want[:, 0] = 2 * x                                   # the constant-index store
    np.testing.assert_array_equal(got, want)


def test_fresh_contents_are_nan_and_minus_one():
    text = cuda_kernel("() -> (%F: !tirx.buffer<32xf32, global>, %I: !tirx.buffer<32xi32, "
                       "global>, %H: !tirx.buffer<32xf16, global>)", """
  %c5 = arith.constant 5 : index
  %t = cuda.thread_idx x : index
  %f = tirx.alloc : !tirx.buffer<8xf32, local>
  %i = tirx.alloc : !tirx.buffer<8xi32, local>
  %h = tirx.alloc : !tirx.buffer<8xf16, local>
  %fv = cuda.load %f, %c5 : !tirx.buffer<8xf32, local>, index -> f32
  %iv = cuda.load %i, %t : !tirx.buffer<8xi32, local>, index -> i32
  %hv = cuda.load %h, %c5 : !tirx.buffer<8xf16, local>, index -> f16
  cuda.store %F, %t, %fv : !tirx.buffer<32xf32, global>, index, f32
  cuda.store %I, %t, %iv : !tirx.buffer<32xi32, global>, index, i32
  cuda.store %H, %t, %hv : !tirx.buffer<32xf16, global>, index, f16""",
                       launch="grid [1] threads [8]")
    (f, i, h), _ = run_simt(text)
    assert np.isnan(f[:8]).all() and np.isnan(h[:8]).all()
    np.testing.assert_array_equal(i[:8], -1)


def test_a_divergent_store_writes_only_the_running_threads():
    text = cuda_kernel(f"() -> (%Out: {F32x64})", """
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %t = cuda.thread_idx x : index
  %r = tirx.alloc : !tirx.buffer<2xf32, local>
  %low = arith.cmpi ult, %t, %c16 : index
  scf.if %low {
    cuda.store %r, %c0, %one : !tirx.buffer<2xf32, local>, index, f32
  }
  %v = cuda.load %r, %c0 : !tirx.buffer<2xf32, local>, index -> f32
  cuda.store %Out, %t, %v : !tirx.buffer<64xf32, global>, index, f32""")
    (out,), _ = run_simt(text)
    np.testing.assert_array_equal(out[:16], 1.0)
    assert np.isnan(out[16:32]).all()


def test_a_local_array_allocated_in_a_loop_is_fresh_every_iteration():
    text = cuda_kernel(f"() -> (%Out: {F32x64})", """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %t = cuda.thread_idx x : index
  scf.for %k = %c0 to %c2 step %c1 {
    %r = tirx.alloc : !tirx.buffer<1xf32, local>
    %v = cuda.load %r, %c0 : !tirx.buffer<1xf32, local>, index -> f32
    %o = arith.muli %k, %c2 : index
    %i = arith.addi %o, %t : index
    cuda.store %Out, %i, %v : !tirx.buffer<64xf32, global>, index, f32
    cuda.store %r, %c0, %one : !tirx.buffer<1xf32, local>, index, f32
  }""", launch="grid [1] threads [2]")
    (out,), _ = run_simt(text)
    assert np.isnan(out[:4]).all()


def test_an_out_of_bounds_index_is_a_located_error_naming_the_threads():
    text = cuda_kernel(f"() -> (%Out: {F32x64})", """
  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %r = tirx.alloc : !tirx.buffer<30xf32, local>
  %v = cuda.load %r, %t : !tirx.buffer<30xf32, local>, index -> f32
  cuda.store %Out, %t, %v : !tirx.buffer<64xf32, global>, index, f32""")
    with pytest.raises(InterpretError, match=r"index 30 is out of bounds of %r \(30 elements, "
                                             r"an access of 1\) \(threads 30-31 of CTA "
                                             r"\(0,0,0\)\)") as err:
        run_simt(text)
    assert err.value.op.name == "cuda.load"
    assert op_location(err.value.op)[1:] == (6, 3)


def test_a_vector_store_past_the_end_is_refused():
    text = cuda_kernel("() -> ()", """
  %c2 = arith.constant 2 : index
  %t = cuda.thread_idx x : index
  %i = arith.muli %t, %c2 : index
  %r = tirx.alloc : !tirx.buffer<4xf32, local>
  %v = cuda.load %r, %c2 : !tirx.buffer<4xf32, local>, index -> vector<2xf32>
  cuda.store %r, %i, %v : !tirx.buffer<4xf32, local>, index, vector<2xf32>""",
                       launch="grid [1] threads [4]")
    with pytest.raises(InterpretError, match=r"index 4 is out of bounds of %r \(4 elements, an "
                                             r"access of 2\)"):
        run_simt(text)


def test_a_store_rounds_to_the_element_type():
    """A value stored into a f16 array as the wider type's nearest f16 (the stored vector is
    f16 already; the round trip through the array keeps its exact bits)."""
    text = cuda_kernel("(%In: !tirx.buffer<32xf32, global>) -> (%Out: !tirx.buffer<32xf16, "
                       "global>)", """
  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %x = cuda.load %In, %t : !tirx.buffer<32xf32, global>, index -> f32
  %h = cuda.cvt %x round rn : f32 -> f16
  %r = tirx.alloc : !tirx.buffer<2xf16, local>
  cuda.store %r, %c0, %h : !tirx.buffer<2xf16, local>, index, f16
  %y = cuda.load %r, %c0 : !tirx.buffer<2xf16, local>, index -> f16
  cuda.store %Out, %t, %y : !tirx.buffer<32xf16, global>, index, f16""")
    x = (np.arange(32, dtype=np.float32) + 1) / 3
    (out,), _ = run_simt(text, x)
    np.testing.assert_array_equal(out, x.astype(np.float16))


def test_a_shared_tirx_alloc_is_one_array_per_cta():
    """Thread t writes slot t of the CTA's array, the block syncs, thread t reads slot 31 - t:
    a tirx.alloc in shared is shared by the CTA's threads (and fresh per CTA)."""
    text = cuda_kernel(f"() -> (%Out: {F32x64})", """
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %s = tirx.alloc : !tirx.buffer<32xf32, shared>
  %ti = arith.index_cast %t : index to i32
  %tf = arith.sitofp %ti : i32 to f32
  %bi = arith.index_cast %b : index to i32
  %bf = arith.sitofp %bi : i32 to f32
  %v = arith.addf %tf, %bf : f32
  cuda.store %s, %t, %v : !tirx.buffer<32xf32, shared>, index, f32
  cuda.sync_threads
  %j = arith.subi %c31, %t : index
  %w = cuda.load %s, %j : !tirx.buffer<32xf32, shared>, index -> f32
  %o = arith.muli %b, %c32 : index
  %i = arith.addi %o, %t : index
  cuda.store %Out, %i, %w : !tirx.buffer<64xf32, global>, index, f32""",
                       launch="grid [2] threads [32]")
    (out,), _ = run_simt(text)
    t = np.arange(32)
    np.testing.assert_array_equal(out, np.concatenate([31 - t, 31 - t + 1]).astype(np.float32))
