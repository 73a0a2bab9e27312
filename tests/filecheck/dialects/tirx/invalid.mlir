// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s

// Every verifier rule of every tirx op and type: each section breaks one rule, and the check
// names the place (file:line:col of the op, or of the text for types) and the message.
// Sections are minimal: tile ops outside a kernel take their operands from test.op.

// --- types and attributes
%0 = "test.op"() : () -> !tirx.buffer<0x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:26: error: invalid type !tirx.buffer: buffer dimensions must be positive, got [0, 4]

// -----

%0 = "test.op"() : () -> !tirx.buffer<?x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:46: error: tirx buffers have static shapes; replace '?' by a size

// -----

%0 = "test.op"() : () -> !tirx.buffer<4xindex, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:26: error: invalid type !tirx.buffer: unsupported buffer element type index; use one of

// -----

%0 = "test.op"() : () -> !tirx.buffer<4xf32, sram>
// CHECK: invalid.mlir:[[# @LINE - 1]]:46: error: unknown memory scope 'sram'; known scopes: global, shared, shared.dyn, local,

// -----

%0 = "test.op"() : () -> !tirx.buffer<4xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:44: error: Expected ',' between the element type and the memory scope

// -----

%0 = "test.op"() : () -> !tirx.buffer<128x512xf32, trn.sbuf, S[(128,500):(1@P,1@F)]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:26: error: invalid type !tirx.buffer: layout S[(128,500):(1@P,1@F)] covers 64000 elements (128x500) but the buffer 128x512 has 65536; make the shard extents multiply to the buffer's element count

// -----

%0 = "test.op"() : () -> !tirx.buffer<128xf32, trn.sbuf, S[(128):(1@Q)]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:58: error: invalid layout: unknown layout axis 'Q'; known axes:

// -----

%0 = "test.op"() : () -> !tirx.buffer<128xf32, trn.sbuf, S[(128):(1@P]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:70: error: Unbalanced ']' in dialect symbol body

// -----

%0 = "test.op"() : () -> !tirx.buffer<8x64xf32, shared, swizzle(3,3,2) S[8,64]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:57: error: invalid layout: swizzle(3,3,2) needs atom_len >= swizzle_len

// -----

%0 = "test.op"() : () -> !tirx.buffer<8xf32, shared, S[(8):(-1)]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:54: error: invalid layout: layout iterator 8:-1 has a negative stride

// -----

%0 = "test.op"() : () -> !tirx.buffer<8xf32, shared, S[(0,8):(8,1)]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:54: error: invalid layout: layout iterator 0:8 has a non-positive extent

// -----

"test.op"() {l = #tirx.layout<S[(8,8):(8@P,)]>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:31: error: invalid layout: expected int in layout 'S[(8,8):(8@P,)]' at offset 13, found ')'

// -----

"test.op"() {t = #tirx.target<aws>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:31: error: string literal expected

// -----

"test.op"() {s = #tirx<exec_scope block>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:35: error: Expected `cluster`, `cta`, `warpgroup`, `warp`, or `thread`.

// -----

// --- kernels
tirx.kernel @k(%A: i32) grid [1] threads [1] {
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op kernel parameter #0 must be a !tirx.buffer, got i32

// -----

tirx.kernel @k(%A: !tirx.buffer<4xf32, shared>) grid [1] threads [1] {
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op kernel parameter #0 is in scope 'shared'; parameters live in 'global' memory (allocate on-chip buffers with tirx.alloc)

// -----

tirx.kernel @k() grid [1, 1, 1, 1] threads [1] {
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op grid [1, 1, 1, 1] must have 1 to 3 positive dims

// -----

tirx.kernel @k() grid [2] threads [0] {
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op threads [0] must have 1 to 3 positive dims

// -----

tirx.kernel @k() grid [3] threads [1] cluster [2] {
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op cluster [2] does not divide grid [3] in dim x

// -----

tirx.kernel @k() grid [1] threads [1] {
  %0 = arith.constant 0 : index
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: 'arith.constant' op terminates block in single-block region but is not a terminator

// -----

tirx.kernel @k() grid [1] threads [1] {
  "test.termop"() : () -> ()
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op a tirx.kernel body must end with tirx.return

// -----

"tirx.kernel"() <{sym_name = "k", num_inputs = 2 : i64, grid = array<i64: 1>, threads = array<i64: 1>}> ({
^bb0(%A: !tirx.buffer<4xf32, global>):
  "tirx.return"() : () -> ()
}) : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 4]]:1: error: 'tirx.kernel' op num_inputs 2 exceeds the 1 parameters

// -----

tirx.return
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.return' op 'tirx.return' expects parent op 'tirx.kernel'

// -----

// --- scope ids
%0 = tirx.cta_id : index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.cta_id' op tirx.cta_id must be inside a tirx.kernel

// -----

tirx.kernel @k() grid [1] threads [64] {
  %0 = tirx.warp_id y : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.warp_id' op tirx.warp_id has no dim 1

// -----

tirx.kernel @k() grid [1] threads [64] {
  %0 = "tirx.thread_id"() <{dim = 3 : i64}> : () -> index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.thread_id' op tirx.thread_id has no dim 3

// -----

tirx.kernel @k() grid [1] threads [48] {
  %0 = tirx.warp_id : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.warp_id' op tirx.warp_id needs a multiple of 32 threads per CTA, but the kernel launches 48; change `threads`

// -----

tirx.kernel @k() grid [1] threads [64] {
  %0 = tirx.warpgroup_id : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.warpgroup_id' op tirx.warpgroup_id needs a multiple of 128 threads per CTA, but the kernel launches 64; change `threads`

// -----

tirx.kernel @k() grid [1] threads [64] {
  %0 = tirx.warp_id_in_wg : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.warp_id_in_wg' op tirx.warp_id_in_wg needs a multiple of 128 threads per CTA, but the kernel launches 64; change `threads`

// -----

tirx.kernel @k() grid [1] threads [64] {
  %0 = tirx.thread_id_in_wg : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.thread_id_in_wg' op tirx.thread_id_in_wg needs a multiple of 128 threads per CTA, but the kernel launches 64; change `threads`

// -----

tirx.kernel @k() grid [1] threads [16] {
  %0 = tirx.lane_id : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.lane_id' op tirx.lane_id needs a multiple of 32 threads per CTA, but the kernel launches 16; change `threads`

// -----

tirx.kernel @k() grid [4] threads [128] {
  %0 = tirx.cluster_id : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.cluster_id' op tirx.cluster_id needs a cluster launch; add `cluster [..]` to the kernel

// -----

tirx.kernel @k() grid [4] threads [128] {
  %0 = tirx.cta_id_in_cluster : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.cta_id_in_cluster' op tirx.cta_id_in_cluster needs a cluster launch; add `cluster [..]` to the kernel

// -----

tirx.kernel @k() grid [3] threads [128] cluster [3] {
  %0 = tirx.cta_id_in_pair : index
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.cta_id_in_pair' op tirx.cta_id_in_pair needs a cluster with an even number of CTAs

// -----

// --- buffer ops
%0 = tirx.alloc : memref<4xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.alloc' op memref<4xf32> should be of base attribute tirx.buffer

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%v = tirx.slice %A[0] [4] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice of a rank-2 buffer needs 2 offsets, sizes and strides (got 1, 1, 1)

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%v = tirx.slice %A[0, 0] [4, 4] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4x4xf16, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice result type must be !tirx.buffer<4x4xf32, global> (the sizes, the source's element type and scope, no layout), got !tirx.buffer<4x4xf16, global>

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%v = tirx.slice %A[0, 6] [4, 4] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice dim 1: [6, 9] is out of bounds for extent 8

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%v = tirx.slice %A[0, 0] [4, 4] strides [1, 0] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice dim 1: sizes and strides must be positive

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%v = tirx.slice %A[0, 0] [4, 4] strides [1, 3] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice dim 1: [0, 9] is out of bounds for extent 8

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%i = "test.op"() : () -> index
%v = "tirx.slice"(%A, %i) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 4>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tirx.buffer<8x8xf32, global>, index) -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op the number of dynamic offsets does not match the operands

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%n = arith.constant 5 : index
%v = tirx.slice %A[0, 0] [%n, 4] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice dim 0: the guarded size is 5, outside [0, 4] (the result type's extent is the maximum)

// -----

%A = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
%n = "test.op"() : () -> index
%v = tirx.slice %A[8, 0] [%n, 4] : !tirx.buffer<8x8xf32, global> -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.slice' op slice dim 0: offset 8 is out of bounds for extent 8

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%t = tirx.transpose %A [0, 0] : !tirx.buffer<8x4xf32, global> -> !tirx.buffer<8x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.transpose' op permutation [0, 0] is not a permutation of 0..1

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%t = tirx.transpose %A [1, 0] : !tirx.buffer<8x4xf32, global> -> !tirx.buffer<8x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.transpose' op transpose result type must be !tirx.buffer<4x8xf32, global>, got !tirx.buffer<8x4xf32, global>

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%r = tirx.reshape %A : !tirx.buffer<8x4xf32, global> -> !tirx.buffer<32xf16, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.reshape' op reshape keeps the element type and scope and carries no layout

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%r = tirx.reshape %A : !tirx.buffer<8x4xf32, global> -> !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.reshape' op reshape [8, 4] -> [4, 4] changes the number of elements (32 -> 16)

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%i = "test.op"() : () -> index
%x = tirx.load %A[%i] : !tirx.buffer<8x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.load' op tirx.load on a rank-2 buffer needs 2 indices, got 1

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%i = "test.op"() : () -> index
%x = "tirx.load"(%A, %i, %i) : (!tirx.buffer<8x4xf32, global>, index, index) -> f16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.load' op tirx.load result type must be the buffer's element type

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%i = "test.op"() : () -> index
%x = "test.op"() : () -> f16
"tirx.store"(%x, %A, %i, %i) : (f16, !tirx.buffer<8x4xf32, global>, index, index) -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.store' op tirx.store of a f16 into a buffer of f32; convert the value first

// -----

%A = "test.op"() : () -> !tirx.buffer<8x4xf32, global>
%i = "test.op"() : () -> index
%x = "test.op"() : () -> f32
tirx.store %x, %A[%i, %i, %i] : !tirx.buffer<8x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.store' op tirx.store on a rank-2 buffer needs 2 indices, got 3

// -----

// --- tile primitives: shared rules
%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%v = "test.op"() : () -> vector<4xf32>
tirx.add %a, %a, %v : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, vector<4xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.add' op operand 'rhs' must be a !tirx.buffer or a scalar (index, integer or float), got vector<4xf32>

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%c = "test.op"() : () -> f32
tirx.fill %c, %c : f32, f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.fill' op operand 'dst' at position 0 does not verify: f32 should be of base attribute tirx.buffer

// -----

tirx.kernel @k(%a: !tirx.buffer<4x4xf32, global>) grid [1] threads [16] {
  tirx.zero warp %a : !tirx.buffer<4x4xf32, global>
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.zero' op a warp-scope tirx.zero needs a multiple of 32 threads per CTA, but kernel @k launches 16; change `threads` or the scope

// -----

tirx.kernel @k(%a: !tirx.buffer<4x4xf32, global>) grid [1] threads [64] {
  tirx.zero warpgroup %a : !tirx.buffer<4x4xf32, global>
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.zero' op a warpgroup-scope tirx.zero needs a multiple of 128 threads per CTA, but kernel @k launches 64; change `threads` or the scope

// -----

tirx.kernel @k(%a: !tirx.buffer<4x4xf32, global>) grid [2] threads [128] {
  tirx.zero cluster %a : !tirx.buffer<4x4xf32, global>
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tirx.zero' op a cluster-scope tirx.zero needs a cluster launch; add `cluster [..]` to kernel @k

// -----

builtin.module attributes {tirx.dispatched} {
  %a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
  tirx.zero %a : !tirx.buffer<4x4xf32, global>
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: 'tirx.zero' op tile primitive tirx.zero is left after tile dispatch; no dispatch variant lowered it (run tirx-dispatch with a target that implements it)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.zero %a, %a : !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:13: error: Expected ':' before the operand types of tirx.zero

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.copy %a, %a : !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: tirx.copy has 2 operands (dst, src) but 1 types

// -----

// --- data movement
%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.copy %a, %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy' op tirx.copy: the source [4, 8] neither has the destination's shape [4, 4] (after dropping unit dims) nor broadcasts to it (right-aligned, each dim equal or 1); slice the operands to matching shapes

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%b = "test.op"() : () -> !tirx.buffer<16xf32, global>
tirx.copy_async %a, %b : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<16xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy_async' op tirx.copy_async: the source [16] neither has the destination's shape [4, 4] (after dropping unit dims) nor broadcasts to it (right-aligned, each dim equal or 1); slice the operands to matching shapes

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%b = "test.op"() : () -> !tirx.buffer<4x4xf16, shared>
tirx.permute_layout %a, %b : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf16, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.permute_layout' op permute_layout keeps the element type; use tirx.cast to convert

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%b = "test.op"() : () -> !tirx.buffer<4x2xf16, shared>
tirx.cast %a, %b : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x2xf16, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.cast' op tirx.cast: shapes [4, 4] and [4, 2] differ (after dropping unit dims); slice the operands to the same shape

// -----

// --- gemm
%d = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%a = "test.op"() : () -> !tirx.buffer<4x4x4xf16, shared>
tirx.gemm %d, %a, %a : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4x4xf16, shared>, !tirx.buffer<4x4x4xf16, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.gemm' op gemm operands must be 2-D, got A [4, 4, 4] and B [4, 4, 4]

// -----

%d = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%a = "test.op"() : () -> !tirx.buffer<4x8xf16, shared>
tirx.gemm %d, %a, %a : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x8xf16, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.gemm' op gemm contraction mismatch: op(A) is [4, 8] but op(B) is [4, 8]; make the K dims agree (or set a transpose flag)

// -----

%d = "test.op"() : () -> !tirx.buffer<4x8xf32, shared>
%a = "test.op"() : () -> !tirx.buffer<4x8xf16, shared>
tirx.gemm %d, %a, %a transpose_b : !tirx.buffer<4x8xf32, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x8xf16, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.gemm' op gemm result D is [4, 8] but op(A) @ op(B) is [4, 4]

// -----

%d = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%c = "test.op"() : () -> !tirx.buffer<4x8xf32, shared>
%a = "test.op"() : () -> !tirx.buffer<4x8xf16, shared>
tirx.gemm %d, %a, %a c %c transpose_b : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x8xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.gemm' op gemm C is [4, 8], expected [4, 4]

// -----

%d = "test.op"() : () -> !tirx.buffer<4x8xf32, shared>
%a = "test.op"() : () -> !tirx.buffer<4x8xf16, shared>
tirx.gemm_async %d, %a, %a : !tirx.buffer<4x8xf32, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x8xf16, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.gemm_async' op gemm_async C is [4, 8] but the product is [4, 4]

// -----

%d = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%a = "test.op"() : () -> !tirx.buffer<4x8xf16, shared>
%s = "test.op"() : () -> !tirx.buffer<4x1xf32, shared>
tirx.gemm_async %d, %a, %a sfa %s : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x8xf16, shared>, !tirx.buffer<4x1xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.gemm_async' op gemm_async scale factors sfa and sfb must be given together

// -----

// --- unary
%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.fill %a, %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.fill' op tirx.fill takes a scalar value, not a buffer

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.memset %a, %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.memset' op tirx.memset takes a scalar value, not a buffer

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xi32, global>
tirx.reciprocal %a, %a : !tirx.buffer<4x4xi32, global>, !tirx.buffer<4x4xi32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.reciprocal' op tirx.reciprocal computes in floating point; operand 'dst' has type i32; cast it first

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x5xf32, global>
tirx.silu %a, %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x5xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.silu' op tirx.silu: shapes [4, 4] and [4, 5] differ (after dropping unit dims); slice the operands to the same shape

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xi32, global>
tirx.silu %a, %a : !tirx.buffer<4x4xi32, global>, !tirx.buffer<4x4xi32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.silu' op tirx.silu computes in floating point; operand 'dst' has type i32; cast it first

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<3x1xf32, global>
tirx.exp %a, %a bias %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<3x1xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.exp' op tirx.exp bias of shape [3, 1] does not broadcast to the destination [4, 4]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<2x4x4xf32, global>
tirx.sqrt %a, %a scale %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<2x4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.sqrt' op tirx.sqrt scale of shape [2, 4, 4] does not broadcast to the destination [4, 4]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%c = "test.op"() : () -> i32
tirx.log2 %a, %a scale %c : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.log2' op tirx.log2 computes in floating point; operand 'scale' has type i32; cast it first

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.exp2 %a, %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.exp2' op tirx.exp2: shapes [4, 4] and [4, 8] differ (after dropping unit dims); slice the operands to the same shape

// -----

// --- binary
%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x2xf32, global>
tirx.add %a, %b, %a : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x2xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.add' op tirx.add lhs of shape [4, 2] does not broadcast to the destination [4, 4]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<5x1xf32, global>
tirx.sub %a, %a, %b : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<5x1xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.sub' op tirx.sub rhs of shape [5, 1] does not broadcast to the destination [4, 4]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xi32, global>
tirx.fdiv %a, %a, %a : !tirx.buffer<4x4xi32, global>, !tirx.buffer<4x4xi32, global>, !tirx.buffer<4x4xi32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.fdiv' op tirx.fdiv computes in floating point; operand 'dst' has type i32; cast it first

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x3xf32, global>
tirx.fma %a, %a, %b, %a : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x3xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.fma' op fma scale of shape [4, 3] does not broadcast to the destination [4, 4]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%b = "test.op"() : () -> !tirx.buffer<2xf32, global>
tirx.select %a, %b, %a where (d0, d1) : (d1 - d0 >= 0) : !tirx.buffer<4x4xf32, global>, !tirx.buffer<2xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.select' op select true_value of shape [2] does not broadcast to the destination [4, 4]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.select %a, %a, %a where (d0) : (d0 >= 0) : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.select' op select predicate has 1 dims and 0 symbols; it needs one dim per destination dim (2) and one symbol per value in `symbols` (0)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.select %a, %a, %a where (d0, d1)[s0] : (d0 - s0 >= 0) : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.select' op select predicate has 2 dims and 1 symbols; it needs one dim per destination dim (2) and one symbol per value in `symbols` (0)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%i = "test.op"() : () -> index
tirx.select %a, %a, %a where (d0, d1)[s0] : (d0 - s0 >= 0) symbols [%i, %i] : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, index, index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.select' op select predicate has 2 dims and 1 symbols; it needs one dim per destination dim (2) and one symbol per value in `symbols` (2)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%i = "test.op"() : () -> index
tirx.select %a, %a, %a where (d0, d1)[s0] : (d0 - s0 >= 0) symbols [%i] : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:{{[0-9]+}}: error: tirx.select has 4 operands (dst, true_value, false_value, symbols[..]) but 3 types

// -----

// --- reductions
%d = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%a = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.sum %d, %a axes [2] : !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.sum' op reduction axis 2 is out of range for a rank-2 source; use an axis in [-2, 2)

// -----

%d = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%a = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.max %d, %a axes [1, -1] : !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.max' op reduction axes [1, -1] repeat an axis

// -----

%d = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%a = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.min %d, %a axes [] : !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.min' op a reduction needs at least one axis

// -----

%d = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%a = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.sum %d, %a axes [0] : !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.sum' op reducing [4, 8] over axes [0] gives [8], but the destination is [4, 1]; give the destination the kept dims

// -----

%d = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%a = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.reduce_negate %d, %a reduce mean : !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.reduce_negate' op reduce_negate reduce 'mean' is not one of sum, max, min

// -----

// --- fused
%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.binary_reduce %e, %r, %e, %e binary pow reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_reduce' op binary_reduce binary 'pow' is not one of add, sub, mul, fdiv, maximum, minimum

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.binary_reduce %e, %r, %e, %e binary add reduce prod : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_reduce' op binary_reduce reduce 'prod' is not one of sum, max, min

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%b = "test.op"() : () -> !tirx.buffer<8x8xf32, global>
tirx.binary_reduce %e, %r, %e, %b binary add reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<8x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_reduce' op binary_reduce rhs of shape [8, 8] does not broadcast to the destination [4, 8]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<8xf32, global>
tirx.binary_reduce %e, %r, %e, %e binary add reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<8xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_reduce' op reducing [4, 8] over axes [-1] gives [4], but the destination is [8]; give the destination the kept dims

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.unary_reduce %e, %r, %e unary tanh reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.unary_reduce' op unary_reduce unary 'tanh' is not one of exp, exp2, log2, sqrt, reciprocal, silu

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.unary_reduce %e, %r, %e unary exp reduce avg : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.unary_reduce' op unary_reduce reduce 'avg' is not one of sum, max, min

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%x = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
tirx.unary_reduce %e, %r, %x unary exp reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.unary_reduce' op unary_reduce: shapes [4, 8] and [4, 4] differ (after dropping unit dims); slice the operands to the same shape

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%b = "test.op"() : () -> !tirx.buffer<4x2xf32, global>
tirx.unary_reduce %e, %r, %e bias %b unary exp reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x2xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.unary_reduce' op unary_reduce bias of shape [4, 2] does not broadcast to the destination [4, 8]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%b = "test.op"() : () -> !tirx.buffer<3x8xf32, global>
tirx.unary_reduce %e, %r, %e scale %b unary exp reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<3x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.unary_reduce' op unary_reduce scale of shape [3, 8] does not broadcast to the destination [4, 8]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%r = "test.op"() : () -> !tirx.buffer<4x2xf32, global>
tirx.unary_reduce %e, %r, %e unary exp reduce sum : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x2xf32, global>, !tirx.buffer<4x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.unary_reduce' op reducing [4, 8] over axes [-1] gives [4], but the destination is [4, 2]; give the destination the kept dims

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%m = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.binary_chain %e, %e, %m, %m op0 rem op1 mul : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x1xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_chain' op binary_chain op0 'rem' is not one of add, sub, mul, fdiv, maximum, minimum

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%m = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.binary_chain %e, %e, %m, %m op0 sub op1 shl : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x1xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_chain' op binary_chain op1 'shl' is not one of add, sub, mul, fdiv, maximum, minimum

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%m = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
tirx.binary_chain %e, %m, %m, %m op0 sub op1 mul : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x1xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_chain' op binary_chain: shapes [4, 8] and [4, 1] differ (after dropping unit dims); slice the operands to the same shape

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%m = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%n = "test.op"() : () -> !tirx.buffer<2x8xf32, global>
tirx.binary_chain %e, %e, %m, %n op0 sub op1 mul : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x1xf32, global>, !tirx.buffer<2x8xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_chain' op binary_chain operand1 of shape [2, 8] does not broadcast to the destination [4, 8]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
%m = "test.op"() : () -> !tirx.buffer<4x1xf32, global>
%n = "test.op"() : () -> !tirx.buffer<2x8xf32, global>
tirx.binary_chain %e, %e, %n, %m op0 sub op1 mul : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>, !tirx.buffer<2x8xf32, global>, !tirx.buffer<4x1xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.binary_chain' op binary_chain operand0 of shape [2, 8] does not broadcast to the destination [4, 8]; each dim must equal the destination's or be 1 (right-aligned)

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.compose_op {
  %c = arith.constant 0 : index
  tirx.zero %e : !tirx.buffer<4x8xf32, global>
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:1: error: 'tirx.compose_op' op tirx.compose_op may contain only tile primitives (not nested compose_op), found arith.constant

// -----

%e = "test.op"() : () -> !tirx.buffer<4x8xf32, global>
tirx.compose_op {
  tirx.compose_op {
    tirx.zero %e : !tirx.buffer<4x8xf32, global>
  }
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:1: error: 'tirx.compose_op' op tirx.compose_op may contain only tile primitives (not nested compose_op), found tirx.compose_op

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%g = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%i = "test.op"() : () -> index
tirx.copy_async %a, %g where (d0, d1) : (d0 - 1 >= 0) symbols [%i] : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, global>, index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy_async' op copy_async predicate has 2 dims and 0 symbols; it needs one dim per destination dim (2) and one symbol per value in `symbols` (1)

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%g = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%i = "test.op"() : () -> index
tirx.copy_async %a, %g symbols [%i] : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, global>, index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy_async' op copy_async symbols name the values of a `where` predicate; the op has none

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%g = "test.op"() : () -> !tirx.buffer<1x4xf32, global>
tirx.copy_async %a, %g where (d0, d1) : (d0 - 1 >= 0) : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<1x4xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy_async' op a copy_async with a `where` predicate needs equal source and destination shapes

// -----

%h = "test.op"() : () -> !tirx.buffer<4x4xf16, shared>
%f = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
tirx.cast %h, %f config {rounding_mode = "rna"} : !tirx.buffer<4x4xf16, shared>, !tirx.buffer<4x4xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.cast' op tirx.cast config rounding_mode must be one of rn, rz, rm, rp; got "rna"

// -----

%i = "test.op"() : () -> !tirx.buffer<4x4xi32, shared>
%f = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
tirx.cast %i, %f config {rounding_mode = "rz"} : !tirx.buffer<4x4xi32, shared>, !tirx.buffer<4x4xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.cast' op tirx.cast config rounding_mode rounds float -> float casts; operand 'dst' has type i32

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
tirx.add %a, %a, %a config {rounding_mode = "rna"} : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.add' op tirx.add config rounding_mode must be one of rn, rz, rm, rp; got "rna"

// -----

%d = "test.op"() : () -> !tirx.buffer<4x4xf64, shared>
%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
tirx.fma %d, %a, %a, %a config {rounding_mode = "rz"} : !tirx.buffer<4x4xf64, shared>, !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.fma' op tirx.fma config rounding_mode rounds f32 arithmetic; operand 'dst' has type f64

// -----

%i = "test.op"() : () -> !tirx.buffer<4x4xi32, shared>
tirx.mul %i, %i, %i config {rounding_mode = "rp"} : !tirx.buffer<4x4xi32, shared>, !tirx.buffer<4x4xi32, shared>, !tirx.buffer<4x4xi32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.mul' op tirx.mul config rounding_mode rounds arithmetic; operand 'dst' has type i32

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
tirx.maximum %a, %a, %a config {rounding_mode = "rz"} : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.maximum' op tirx.maximum is exact and takes no rounding_mode; it rounds add, sub, mul, fdiv

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
tirx.sqrt %a, %a config {rounding_mode = 3} : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.sqrt' op tirx.sqrt config rounding_mode must be one of rn, rz, rm, rp; got 3 : i64

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%g = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%m = "test.op"() : () -> index
tirx.copy_async %a, %g cta_mask %m config {cta_mask = 3} : !tirx.buffer<4x4xf32, shared>, !tirx.buffer<4x4xf32, global>, index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy_async' op copy_async has a cta_mask operand and a cta_mask config; give one

// -----

%a = "test.op"() : () -> !tirx.buffer<4x4xf32, shared>
%g = "test.op"() : () -> !tirx.buffer<4x4xf32, global>
%m = "test.op"() : () -> index
tirx.copy_async %g, %a cta_mask %m config {use_tma_reduce = "add"} : !tirx.buffer<4x4xf32, global>, !tirx.buffer<4x4xf32, shared>, index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'tirx.copy_async' op a cta_mask multicasts a load into the CTAs of the mask; a remote_cta, predicated or reducing copy_async cannot have one
