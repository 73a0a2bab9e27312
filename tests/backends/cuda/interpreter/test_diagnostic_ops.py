"""Device printf, clock64, nanosleep and trap on the SIMT interpreter."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_lanes import run_lanes
from tirx_mlir.interpreter import KernelRunner, make_interpreter
from tirx_mlir.interpreter.runtime import InterpretError
from tirx_mlir.located_parser import parse_module

PRINTF = cuda_kernel("() -> (%Out: !tirx.buffer<1xi32, global>)", """
  %t = cuda.thread_idx x : index
  %t32 = arith.index_cast %t : index to i32
  %c6 = arith.constant 6 : index
  %few = arith.cmpi ult, %t, %c6 : index
  %odd = arith.constant 1 : i32
  %bit = arith.andi %t32, %odd : i32
  %isodd = arith.cmpi eq, %bit, %odd : i32
  %x = arith.constant 0.25 : f32
  %big = arith.constant -1 : i64
  scf.if %few {
    scf.if %isodd {
      cuda.printf "odd %d: %5.2f %llu 100%%\\n", %t32, %x, %big : i32, f32, i64
    }
  }""")


def test_printf_prints_each_active_lane_in_lane_order_to_the_interpreters_file():
    module = parse_module(PRINTF, "<test>")
    out = io.StringIO()
    KernelRunner(module, interpreter=make_interpreter(module, file=out))()
    line = " {}:  0.25 18446744073709551615 100%\n"  # %5.2f pads to 5
    assert out.getvalue() == "".join("odd" + line.format(t) for t in (1, 3, 5))


def test_printf_goes_to_stdout_by_default(capsys):
    run_simt(PRINTF)
    assert capsys.readouterr().out.splitlines()[0] == "odd 1:  0.25 18446744073709551615 100%"


def test_printf_promotes_arguments_as_c_varargs_do(capsys):
    run_simt(cuda_kernel("() -> (%Out: !tirx.buffer<1xi32, global>)", """
  %m1 = arith.constant -1 : i8
  %h = arith.constant 1.5 : f16
  %yes = arith.constant true
  %big = arith.constant 70000 : i32
  cuda.printf "%u %d %hd %hhu %g %d|\\n", %m1, %m1, %big, %big, %h, %yes : i8, i8, i32, i32, f16, i1
  """, "grid [1] threads [2]"))
    # i8 -1 promotes to int -1 (%u: 2**32 - 1); %hd/%hhu truncate 70000 to 16 / 8 bits
    assert capsys.readouterr().out == "4294967295 -1 4464 112 1.5 1|\n" * 2


def test_clock64_increases_in_every_thread_and_with_the_work_between():
    out = run_lanes("""
  %a = cuda.clock64 : i64
  %b = cuda.clock64 : i64
  %c1 = arith.constant 1 : index
  %n = arith.constant 10 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %x = arith.addi %acc, %i : index
    scf.yield %x : index
  }
  %c = cuda.clock64 : i64
  %d1 = arith.subi %b, %a : i64
  %d2 = arith.subi %c, %b : i64
  %big = arith.constant 1000 : i64
  %scaled = arith.muli %d2, %big : i64
  %sum = arith.addi %scaled, %d1 : i64
  %r = arith.trunci %sum : i64 to i32""", threads=64)
    d1, d2 = out % 1000, out // 1000
    assert (d1 >= 1).all() and (d2 > d1).all() and (d2 >= 10).all()


HANDOFF = cuda_kernel("() -> (%Out: !tirx.buffer<64xi32, global>)", """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = cuda.thread_idx x : index
  %c32 = arith.constant 32 : index
  %flag = cuda.shared_alloc : !tirx.buffer<1xi32, shared>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %ns = arith.constant 100 : i32
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    cuda.store %flag, %c0, %zero : !tirx.buffer<1xi32, shared>, index, i32
  }
  cuda.sync_threads
  %consumer = arith.cmpi ult, %t, %c32 : index
  %r = scf.if %consumer -> (i32) {
    %seen = scf.while (%polls = %zero) : (i32) -> i32 {
      %f = cuda.load %flag, %c0 : !tirx.buffer<1xi32, shared>, index -> i32
      %unset = arith.cmpi eq, %f, %zero : i32
      scf.condition(%unset) %polls : i32
    } do {
    ^bb0(%p: i32):
      cuda.nanosleep %ns : i32
      %next = arith.addi %p, %one : i32
      scf.yield %next : i32
    }
    scf.yield %seen : i32
  } else {
    %delay = arith.constant DELAY : index
    scf.for %i = %c0 to %delay step %c1 {
      cuda.nanosleep %ns : i32
    }
    PRODUCE
    scf.yield %zero : i32
  }
  cuda.store %Out, %t, %r : !tirx.buffer<64xi32, global>, index, i32""",
                      "grid [1] threads [64]")

SET_FLAG = "cuda.store %flag, %c0, %one : !tirx.buffer<1xi32, shared>, index, i32"


def test_a_spin_wait_with_nanosleep_sees_a_producer_that_sleeps_first():
    (out,), _ = run_simt(HANDOFF.replace("DELAY", "20").replace("PRODUCE", SET_FLAG),
                         racecheck=False)
    polls = out[:32]
    assert (polls == polls[0]).all() and polls[0] >= 20  # it polled while the producer slept
    assert (out[32:] == 0).all()


def test_a_spin_wait_on_a_flag_nobody_sets_is_a_deadlock_error():
    with pytest.raises(InterpretError) as err:
        run_simt(HANDOFF.replace("DELAY", "3").replace("PRODUCE", ""), racecheck=False)
    msg = str(err.value)
    assert msg.startswith("<test>:")
    assert ("deadlock, no thread can make progress: threads 0-31 of CTA (0,0,0) wait at "
            "cuda.nanosleep at <test>:24:7 for a change while it sleeps") in msg


def test_trap_names_the_threads_that_trapped():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<1xi32, global>)", """
  %t = cuda.thread_idx x : index
  %c40 = arith.constant 40 : index
  %bad = arith.cmpi ugt, %t, %c40 : index
  scf.if %bad {
    cuda.trap
  }""", "grid [2] threads [64]")
    with pytest.raises(InterpretError) as err:
        run_simt(text)
    assert ("<test>:7:5: error: [trap] cuda.trap: __trap(): the kernel aborted (threads 41-63 "
            "of CTAs (0,0,0), (1,0,0))") in str(err.value)
