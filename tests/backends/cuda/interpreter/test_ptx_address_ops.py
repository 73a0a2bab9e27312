"""cvta, mapa and getctarank on the SIMT interpreter, in memory.py's address encoding."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.backends.cuda.interpreter.memory import CLUSTER_WINDOW
from tirx_mlir.interpreter.runtime import InterpretError

SHARED_ROUND_TRIP = cuda_kernel("() -> (%Out: !tirx.buffer<32xi64, global>)", """
  %t = cuda.thread_idx x : index
  %s = cuda.shared_alloc : !tirx.buffer<32xi32, shared>
  %a = cuda.address %s, %t : !tirx.buffer<32xi32, shared>, index -> i32
  %a64 = arith.extui %a : i32 to i64
  %g = ptx.cvta "shared" %a64 : (i64) -> i64
  %v = arith.index_cast %t : index to i32
  %back = ptx.cvta "to.shared" %g : (i64) -> i64
  %back32 = arith.trunci %back : i64 to i32
  ptx.st "shared.b32" [%back32], %v : (i32, i32) -> ()
  %w = cuda.load %s, %t : !tirx.buffer<32xi32, shared>, index -> i32
  %w64 = arith.extui %w : i32 to i64
  %c32 = arith.constant 4294967296 : i64
  %hi = arith.muli %back, %c32 : i64
  %r = arith.addi %hi, %w64 : i64
  cuda.store %Out, %t, %r : !tirx.buffer<32xi64, global>, index, i64""")


def test_cvta_to_generic_and_back_is_the_shared_offset():
    (out,), _ = run_simt(SHARED_ROUND_TRIP)
    t = np.arange(32)
    np.testing.assert_array_equal(out >> 32, t * 4)  # the shared offsets come back
    np.testing.assert_array_equal(out & 0xFFFFFFFF, t)  # and address the same elements


def test_cvta_generic_addresses_are_in_the_shared_generic_window():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<1xi64, global>)", """
  %c0 = arith.constant 0 : index
  %s = cuda.shared_alloc : !tirx.buffer<8xi32, shared>
  %a = cuda.address %s, %c0 : !tirx.buffer<8xi32, shared>, index -> i64
  %g = cuda.address %Out, %c0 : !tirx.buffer<1xi64, global>, index -> i64
  %same = ptx.cvta "global" %g : (i64) -> i64
  %off = ptx.cvta "to.shared" %a : (i64) -> i64
  %r = arith.subi %same, %g : i64
  %r2 = arith.addi %r, %off : i64
  cuda.store %Out, %c0, %r2 : !tirx.buffer<1xi64, global>, index, i64""", "grid [1] threads [1]")
    (out,), _ = run_simt(text)
    assert out[0] == 0  # the global window is the identity; %s is at shared offset 0


def test_cvta_to_shared_of_a_global_address_is_a_located_error():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<4xi64, global>)", """
  %c0 = arith.constant 0 : index
  %g = cuda.address %Out, %c0 : !tirx.buffer<4xi64, global>, index -> i64
  %off = ptx.cvta "to.shared" %g : (i64) -> i64""", "grid [1] threads [4]")
    with pytest.raises(InterpretError, match=r"<test>:5:3: error: ptx.cvta: cvta.to.shared of "
                                             r"an address outside the generic shared window "
                                             r"\(threads 0-3 of CTA \(0,0,0\)\)"):
        run_simt(text)


def test_mapa_encodes_the_rank_window_and_getctarank_decodes_it():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<8xi32, global>)", """
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %s = cuda.shared_alloc : !tirx.buffer<16xi32, shared>
  %a = cuda.address %s, %t : !tirx.buffer<16xi32, shared>, index -> i32
  %rank = arith.index_cast %t : index to i32
  %m = ptx.mapa "u32" %a, %rank : (i32, i32) -> i32
  %own = ptx.getctarank "u32" %a : (i32) -> i32
  %owner = ptx.getctarank "u32" %m : (i32) -> i32
  %c1000 = arith.constant 1000 : i32
  %x = arith.muli %own, %c1000 : i32
  %y = arith.addi %x, %owner : i32
  %base = arith.muli %b, %c4 : index
  %i = arith.addi %base, %t : index
  cuda.store %Out, %i, %y : !tirx.buffer<8xi32, global>, index, i32
  %first = arith.cmpi eq, %i, %c0 : index
  scf.if %first {
    %mm = ptx.mapa "u32" %a, %rank : (i32, i32) -> i32
    cuda.store %Out, %c0, %mm : !tirx.buffer<8xi32, global>, index, i32
  }""", "grid [2] threads [4] cluster [2]")
    (out,), _ = run_simt(text)
    assert out[0] == CLUSTER_WINDOW  # rank 0's window, offset 0
    np.testing.assert_array_equal(out[1:4], [1, 2, 3])  # CTA rank 0 owns its own address
    np.testing.assert_array_equal(out[4:], [1000, 1001, 1002, 1003])


def test_cvta_of_another_ctas_cluster_address_is_refused():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<2xi64, global>)", """
  %c0 = arith.constant 0 : index
  %s = cuda.shared_alloc : !tirx.buffer<1xi32, shared>
  %a = cuda.address %s, %c0 : !tirx.buffer<1xi32, shared>, index -> i32
  %one = arith.constant 1 : i32
  %m = ptx.mapa "u32" %a, %one : (i32, i32) -> i32
  %m64 = arith.extui %m : i32 to i64
  %g = ptx.cvta "shared::cluster" %m64 : (i64) -> i64
  %b = cuda.block_idx x : index
  cuda.store %Out, %b, %g : !tirx.buffer<2xi64, global>, index, i64""",
                       "grid [2] threads [1] cluster [2]")
    with pytest.raises(InterpretError, match=r"cvta of a shared::cluster address of another "
                                             r"CTA.*\(thread \(0,0,0\) of CTA \(0,0,0\)\)"):
        run_simt(text)
