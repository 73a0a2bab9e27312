// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s

// The nvshmem verifiers: each section breaks one rule (symmetric memory, element and signal
// types, groups, signal operations and comparisons from their closed sets).

%s, %g, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, shared>, !tirx.buffer<64xf32, global>, index, i32)
nvshmem.put %s, %g, %n, %pe : !tirx.buffer<64xf32, shared>, !tirx.buffer<64xf32, global>, index, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put' op operand 'dest' is in shared, but it must be symmetric memory (global, from nvshmem_malloc); stage it through a global buffer

// -----

%d, %g, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf16, global>, index, i32)
nvshmem.put %d, %g, %n, %pe : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf16, global>, index, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put' op dest holds f32 but source holds f16; both sides hold one element type

// -----

%d, %g, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, i32, i32)
nvshmem.put %d, %g, %n, %pe nbi : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, i32, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put' op operand 'nelems' must be index, got i32

// -----

%d, %g, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, i64)
nvshmem.put %d, %g, %n, %pe : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put' op operand 'pe' must be i32, got i64; it is a PE number (nvshmem.my_pe gives one)

// -----

%d, %g, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, i32)
nvshmem.put %d, %g, %n, %pe group grid : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put' op group 'grid' is not thread, warp or block

// -----

%d, %s, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, shared>, index, i32)
nvshmem.get %d, %s, %n, %pe : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, shared>, index, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.get' op operand 'source' is in shared, but it must be symmetric memory (global, from nvshmem_malloc); stage it through a global buffer

// -----

%d, %s, %n, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, local>, !tirx.buffer<64xf32, global>, index, i32)
nvshmem.get %d, %s, %n, %pe : !tirx.buffer<64xf32, local>, !tirx.buffer<64xf32, global>, index, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.get' op operand 'dest' is in local; it must be in global, shared or shared.dyn

// -----

%d, %g, %n, %sig, %v, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, !tirx.buffer<1xi32, global>, i64, i32)
nvshmem.put_signal set %d, %g, %n, %sig, %v, %pe : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, !tirx.buffer<1xi32, global>, i64, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put_signal' op operand 'signal' holds i32; a signal is a 64-bit word: use an i64 buffer

// -----

%d, %g, %n, %sig, %v, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, !tirx.buffer<1xi64, global>, i32, i32)
nvshmem.put_signal add %d, %g, %n, %sig, %v, %pe : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, !tirx.buffer<1xi64, global>, i32, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put_signal' op operand 'signal_value' must be i64, got i32; a signal is a 64-bit word

// -----

%d, %g, %n, %sig, %v, %pe = "test.op"() : () -> (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32)
"nvshmem.put_signal"(%d, %g, %n, %sig, %v, %pe) <{signal_op = "mul"}> : (!tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32) -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.put_signal' op signal_op 'mul' is not set or add

// -----

%sig, %v, %pe = "test.op"() : () -> (!tirx.buffer<1xi64, shared>, i64, i32)
nvshmem.signal_op set %sig, %v, %pe : !tirx.buffer<1xi64, shared>, i64, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.signal_op' op operand 'signal' is in shared, but it must be symmetric memory (global, from nvshmem_malloc); stage it through a global buffer

// -----

%sig, %v = "test.op"() : () -> (!tirx.buffer<1xi64, global>, i64)
%r = "nvshmem.signal_wait_until"(%sig, %v) <{cmp = "gte"}> : (!tirx.buffer<1xi64, global>, i64) -> i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.signal_wait_until' op cmp 'gte' is not eq, ne, gt, ge, lt or le

// -----

%sig, %v = "test.op"() : () -> (!tirx.buffer<1xi64, global>, i64)
%r = nvshmem.signal_wait_until ge %sig, %v : !tirx.buffer<1xi64, global>, i64 -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.signal_wait_until' op the result type must be i64, got i32

// -----

%iv, %v = "test.op"() : () -> (!tirx.buffer<1xf32, global>, f32)
nvshmem.wait_until eq %iv, %v : !tirx.buffer<1xf32, global>, f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.wait_until' op operand 'ivar' holds f32; a wait variable is i32, ui32 or i64

// -----

%iv, %v = "test.op"() : () -> (!tirx.buffer<1xi64, global>, i32)
nvshmem.wait_until ne %iv, %v : !tirx.buffer<1xi64, global>, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.wait_until' op operand 'value' has type i32 but must be i64; it is compared with the buffer's element

// -----

nvshmem.barrier_all group grid
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.barrier_all' op group 'grid' is not thread, warp or block

// -----

%me = nvshmem.my_pe : i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nvshmem.my_pe' op the result type must be i32, got i64
