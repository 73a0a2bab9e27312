// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s

// The cuda verifiers: each section breaks one rule (types, memory scopes, the launch a kernel
// gives, the target's architecture, printf formats); the message names the op, the operand and
// what to change. Launch and architecture rules apply inside a kernel that states them.

%t = "cuda.thread_idx"() <{dim = "w"}> : () -> index
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.thread_idx' op dim 'w' is not x, y or z

// -----

%t = cuda.thread_idx x : i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.thread_idx' op the result type must be index, got i32

// -----

tirx.kernel @k() grid [4] threads [128] target "cuda -arch=sm_90a" {
  %c = cuda.cluster_idx x : index
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.cluster_idx' op thread block clusters: the kernel is not launched with clusters; add `cluster [..]` to the kernel
  tirx.return
}

// -----

tirx.kernel @k() grid [4] threads [128] cluster [2] target "cuda -arch=sm_80" {
  %c = cuda.cluster_block_rank : index
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.cluster_block_rank' op thread block clusters: not available before sm_90, but the target is sm_80; target sm_90 or newer, or avoid it
  tirx.return
}

// -----

tirx.kernel @k() grid [1] threads [100] {
  %w = cuda.warp_id : index
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.warp_id' op warp ids: the block must hold a multiple of 32 threads, but the kernel launches 100; change `threads`
  tirx.return
}

// -----

tirx.kernel @k() grid [1] threads [128] target "aws/trn1/trn1.2xlarge" {
  %t = cuda.thread_idx x : index
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.thread_idx' op cuda ops need a cuda target, but the kernel targets 'aws/trn1/trn1.2xlarge'; use e.g. target "cuda -arch=sm_90a" or "nvidia/nvidia-h100"
  tirx.return
}

// -----

%p = "test.op"() : () -> i32
%n = cuda.sync_threads_vote and %p : i32 -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.sync_threads_vote' op operand 'pred' must be i1, got i32; it is the thread's predicate

// -----

%m = "test.op"() : () -> i64
cuda.sync_warp %m : i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.sync_warp' op operand 'mask' must be i32, got i64; it is a lane mask

// -----

cuda.sync_warpgroup barrier 16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.sync_warpgroup' op barrier 16 does not exist; a block has named barriers 0..15

// -----

tirx.kernel @k() grid [1] threads [96] {
  cuda.sync_warpgroup barrier 1
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.sync_warpgroup' op warpgroup barriers: the block must hold a multiple of 128 threads, but the kernel launches 96; change `threads`
  tirx.return
}

// -----

tirx.kernel @k() grid [1] threads [1024] {
  cuda.sync_warpgroup barrier 9 per_warpgroup
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.sync_warpgroup' op 8 warpgroups from barrier 9 need barriers 9..16; a block has named barriers 0..15
  tirx.return
}

// -----

tirx.kernel @k() grid [2] threads [128] target "cuda -arch=sm_90a" {
  cuda.sync_cluster
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.sync_cluster' op cluster barriers: the kernel is not launched with clusters; add `cluster [..]` to the kernel
  tirx.return
}

// -----

tirx.kernel @k() grid [1] threads [32] target "nvidia/nvidia-a100" {
  %m = "test.op"() : () -> i32
  %e = cuda.elect_sync %m : i32 -> i1
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.elect_sync' op elect.sync: not available before sm_90, but the target is sm_80; target sm_90 or newer, or avoid it
  tirx.return
}

// -----

%m, %f, %i = "test.op"() : () -> (i32, f32, i32)
%y = cuda.shfl_sync down %m, %f, %i width 3 : i32, f32, i32 -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shfl_sync' op width is 3; it must be a power of two, at least 1 and at most 32

// -----

%m, %v, %i = "test.op"() : () -> (i32, i8, i32)
%y = cuda.shfl_sync idx %m, %v, %i : i32, i8, i32 -> i8
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shfl_sync' op operand 'value' must be i32, ui32, i64, f32, f64, f16 or bf16, got i8; pack narrower values into 32 bits

// -----

%m, %f, %i = "test.op"() : () -> (i32, f32, index)
%y = cuda.shfl_sync up %m, %f, %i : i32, f32, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shfl_sync' op operand 'lane' must be i32, got index; it is a lane, a delta or a lane mask

// -----

%m, %f, %i = "test.op"() : () -> (i32, f32, i32)
%y = cuda.shfl_sync xor %m, %f, %i : i32, f32, i32 -> f64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shfl_sync' op the result has type f64 but must be f32; it is the type of operand 'value'

// -----

%m, %p = "test.op"() : () -> (i32, i1)
%b = cuda.vote ballot %m, %p : i32, i1 -> i1
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.vote' op the result has type i1 but must be i32; vote ballot gives i32

// -----

%m, %f = "test.op"() : () -> (i32, f32)
%r = cuda.warp_reduce and %m, %f : i32, f32 -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.warp_reduce' op a bitwise 'and' reduction takes i32 or ui32, got f32; bitcast the value or reduce with sum/max/min

// -----

%f, %s = "test.op"() : () -> (f32, !tirx.buffer<32xf32, global>)
%r = cuda.cta_reduce sum %f, %s : f32, !tirx.buffer<32xf32, global> -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.cta_reduce' op operand 'scratch' is in global; it must be in shared or shared.dyn

// -----

tirx.kernel @k() grid [1] threads [256] {
  %f, %s = "test.op"() : () -> (f32, !tirx.buffer<4xf32, shared>)
  %r = cuda.cta_reduce sum %f, %s : f32, !tirx.buffer<4xf32, shared> -> f32
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.cta_reduce' op operand 'scratch' holds 4 elements, but the block's 8 warps need one each; allocate at least 8
  tirx.return
}

// -----

%g, %i, %f = "test.op"() : () -> (!tirx.buffer<64xf32, global>, index, f32)
%o = cuda.atomic max %g, %i, %f : !tirx.buffer<64xf32, global>, index, f32 -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.atomic' op atomic max on f32 does not exist; it takes i32, ui32 or i64

// -----

tirx.kernel @k() grid [1] threads [32] target "cuda -arch=sm_75" {
  %g, %i, %v = "test.op"() : () -> (!tirx.buffer<64xbf16, global>, index, bf16)
  %o = cuda.atomic add %g, %i, %v : !tirx.buffer<64xbf16, global>, index, bf16 -> bf16
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.atomic' op atomic add on bf16: not available before sm_80, but the target is sm_75; target sm_80 or newer, or avoid it
  tirx.return
}

// -----

%g, %i, %v = "test.op"() : () -> (!tirx.buffer<64xi32, global>, index, i64)
%o = cuda.atomic add %g, %i, %v : !tirx.buffer<64xi32, global>, index, i64 -> i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.atomic' op operand 'value' has type i64 but must be i32; use the buffer's element type

// -----

%g, %i, %v = "test.op"() : () -> (!tirx.buffer<64xi32, shared>, index, i32)
%o = cuda.atomic add %g, %i, %v scope block : !tirx.buffer<64xi32, shared>, index, i32 -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.atomic' op scope 'block' is not cta, gpu or sys

// -----

%g, %i, %v = "test.op"() : () -> (!tirx.buffer<64xi32, local>, index, i32)
%o = cuda.atomic_cas %g, %i, %v, %v : !tirx.buffer<64xi32, local>, index, i32, i32 -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.atomic_cas' op operand 'memory' is in local; it must be in global, shared or shared.dyn

// -----

%g, %i = "test.op"() : () -> (!tirx.buffer<64xf16, global>, index)
%v = cuda.load %g, %i : !tirx.buffer<64xf16, global>, index -> vector<8xf16>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op the result has 8 lanes; a vector access moves 1, 2 or 4 elements

// -----

%g, %i = "test.op"() : () -> (!tirx.buffer<64xf64, global>, index)
%v = cuda.load %g, %i : !tirx.buffer<64xf64, global>, index -> vector<4xf64>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op the result moves 32 bytes; one access moves at most 16 bytes: use fewer lanes

// -----

%g, %i = "test.op"() : () -> (!tirx.buffer<64xf32, global>, index)
%v = cuda.load %g, %i : !tirx.buffer<64xf32, global>, index -> vector<2xf16>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op the result has element type f16 but the buffer holds f32; use the buffer's element type

// -----

%s, %i = "test.op"() : () -> (!tirx.buffer<64xf32, shared>, index)
%v = cuda.load %s, %i cache cg : !tirx.buffer<64xf32, shared>, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op cache hints apply to global memory, but operand 'memory' is in shared; drop them

// -----

%g, %i, %v = "test.op"() : () -> (!tirx.buffer<64xf32, global>, index, f32)
cuda.store %g, %i, %v cache ca : !tirx.buffer<64xf32, global>, index, f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.store' op cache hint 'ca' is not wb, cg, cs or wt

// -----

%g, %i = "test.op"() : () -> (!tirx.buffer<64xf32, global>, index)
%v = cuda.load %g, %i cache cv nc : !tirx.buffer<64xf32, global>, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op a read-only (nc) load takes cache hint ca, cg or cs, not 'cv'

// -----

%g, %i = "test.op"() : () -> (!tirx.buffer<64xf32, global>, i32)
%v = cuda.load %g, %i : !tirx.buffer<64xf32, global>, i32 -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op operand 'index' must be index, got i32

// -----

tirx.kernel @k() grid [1] threads [32] target "cuda -arch=sm_80" {
  cuda.fence cluster
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.fence' op a cluster-scope fence: not available before sm_90, but the target is sm_80; target sm_90 or newer, or avoid it
  tirx.return
}

// -----

%s = cuda.shared_alloc : !tirx.buffer<64xf32, global>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shared_alloc' op the result must be a !tirx.buffer in shared, got !tirx.buffer<64xf32, global>

// -----

%s = cuda.shared_alloc : !tirx.buffer<128x128xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shared_alloc' op the array takes 65536 bytes; static shared memory is limited to 49152 bytes per block: use cuda.dynamic_shared for more

// -----

%s = cuda.shared_alloc align 3 : !tirx.buffer<64xf32, shared>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.shared_alloc' op align is 3; it must be a power of two, at least 4

// -----

%s = cuda.dynamic_shared offset 8 : !tirx.buffer<64xf32, shared.dyn>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.dynamic_shared' op offset 8 must be a non-negative multiple of the alignment 16

// -----

tirx.kernel @k() grid [1] threads [32] target "nvidia/nvidia-a100" {
  %s = cuda.dynamic_shared offset 65536 : !tirx.buffer<32768xf32, shared.dyn>
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.dynamic_shared' op the view ends at byte 196608 of the arena, but the target allows 166912 bytes of shared memory per block; shrink the view or target a GPU with more shared memory
  tirx.return
}

// -----

cuda.printf "name=%s\n"
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.printf' op the format conversion '%s' at offset 5 is not supported; use one of %d %i %u %x %X %o %c %f %e %g %a (with optional flags, width, precision and h/l/ll), or %% for '%'

// -----

%i = "test.op"() : () -> i32
cuda.printf "%d %d\n", %i : i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.printf' op the format has 2 conversion(s) but 1 argument(s) are given; pass one argument per conversion

// -----

%f = "test.op"() : () -> f32
cuda.printf "%d\n", %f : f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.printf' op argument #0 for '%d' is f32; it must be an integer of at most 32 bits (i32)

// -----

%i = "test.op"() : () -> i32
cuda.printf "%ld\n", %i : i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.printf' op argument #0 for '%ld' is i32; it must be a 64-bit integer (i64)

// -----

%n = "test.op"() : () -> i64
cuda.nanosleep %n : i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.nanosleep' op operand 'ns' must be i32 or ui32, got i64; it is a duration in nanoseconds

// -----

%h = "test.op"() : () -> f16
%y = cuda.fast exp2 %h : f16 -> f16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.fast' op operand 'x' must be f32, got f16; the approximate intrinsics work on f32: convert with cuda.cvt first

// -----

%a = "test.op"() : () -> f64
%q = cuda.fdividef %a, %a : f64, f64 -> f64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.fdividef' op operand 'lhs' must be f32, got f64

// -----

%f = "test.op"() : () -> f32
%p = cuda.pack %f, %f : f32, f32 -> vector<4xf16>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.pack' op the result must be vector<2xf16> (half2) or vector<2xbf16> (bfloat162), got vector<4xf16>

// -----

tirx.kernel @k() grid [1] threads [32] target "cuda -arch=sm_75" {
  %f = "test.op"() : () -> f32
  %p = cuda.pack %f, %f : f32, f32 -> vector<2xbf16>
  // CHECK: invalid.mlir:[[# @LINE - 1]]:3: error: 'cuda.pack' op bfloat162 packing: not available before sm_80, but the target is sm_75; target sm_80 or newer, or avoid it
  tirx.return
}

// -----

%h = "test.op"() : () -> vector<2xf16>
%lo, %hi = cuda.unpack %h : vector<2xf16> -> f32, f16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.unpack' op the halves have one type, got f32 and f16

// -----

%h = "test.op"() : () -> f32
%y = cuda.cvt %h : f32 -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.cvt' op converting f32 to itself; drop the cuda.cvt

// -----

%h = "test.op"() : () -> f16
%y = cuda.cvt %h round rn : f16 -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.cvt' op f16 -> f32 is exact; drop 'round rn'

// -----

%g = "test.op"() : () -> !tirx.buffer<64xf32, global>
%c6 = arith.constant 6 : index
%v = cuda.load %g, %c6 : !tirx.buffer<64xf32, global>, index -> vector<4xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op index 6 is not a multiple of the 4 lanes; a vector access must be aligned to its size: use a multiple of 4

// -----

%g, %v = "test.op"() : () -> (!tirx.buffer<64xf32, global>, vector<2xf32>)
%c64 = arith.constant 64 : index
cuda.store %g, %c64, %v : !tirx.buffer<64xf32, global>, index, vector<2xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.store' op elements [64, 66) lie outside the buffer's 64 elements; use an index in [0, 62]

// -----

%g, %v = "test.op"() : () -> (!tirx.buffer<16xi32, shared>, i32)
%c16 = arith.constant 16 : index
%o = cuda.atomic exch %g, %c16, %v : !tirx.buffer<16xi32, shared>, index, i32 -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.atomic' op element 16 lies outside the buffer's 16 elements; use an index in [0, 15]

// -----

%g = "test.op"() : () -> !tirx.buffer<64xf32, global>
%i = arith.constant 0 : index
%a = cuda.address %g, %i : !tirx.buffer<64xf32, global>, index -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.address' op an i32 address is a shared-window address, but operand 'memory' is in global: use i64

// -----

%s = cuda.shared_alloc : !tirx.buffer<64xf32, shared>
%i = arith.constant 64 : index
%a = cuda.address %s, %i : !tirx.buffer<64xf32, shared>, index -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.address' op element 64 lies outside the buffer's 64 elements; use an index in [0, 63]

// -----

%s = cuda.shared_alloc : !tirx.buffer<64xf32, shared>
%i = arith.constant 0 : index
%a = cuda.address %s, %i : !tirx.buffer<64xf32, shared>, index -> i16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.address' op the result must be i64 (a generic address) or i32 (a shared-window address), got i16

// -----

%r, %i = "test.op"() : () -> (!tirx.buffer<8xf32, local>, index)
%v = cuda.load %r, %i cache cg : !tirx.buffer<8xf32, local>, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op cache hints mean nothing for a thread's local array (registers or .local memory, never through L1/L2 as a global access is); drop them

// -----

%r, %i = "test.op"() : () -> (!tirx.buffer<8xf32, local>, index)
%v = cuda.load %r, %i nc : !tirx.buffer<8xf32, local>, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op nc hints mean nothing for a thread's local array (registers or .local memory, never through L1/L2 as a global access is); drop them

// -----

%r, %i, %v = "test.op"() : () -> (!tirx.buffer<8xf32, local>, index, f32)
cuda.store %r, %i, %v evict evict_first : !tirx.buffer<8xf32, local>, index, f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.store' op evict hints mean nothing for a thread's local array (registers or .local memory, never through L1/L2 as a global access is); drop them

// -----

%r = "test.op"() : () -> !tirx.buffer<8xf32, local>
%c6 = arith.constant 6 : index
%v = cuda.load %r, %c6 : !tirx.buffer<8xf32, local>, index -> vector<4xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op index 6 is not a multiple of the 4 lanes; a vector access must be aligned to its size: use a multiple of 4

// -----

%r, %v = "test.op"() : () -> (!tirx.buffer<8xf32, local>, vector<2xf32>)
%c8 = arith.constant 8 : index
cuda.store %r, %c8, %v : !tirx.buffer<8xf32, local>, index, vector<2xf32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.store' op elements [8, 10) lie outside the buffer's 8 elements; use an index in [0, 6]

// -----

%r, %i = "test.op"() : () -> (!tirx.buffer<32xf32, local, S[(32):(1@laneid)]>, index)
%v = cuda.load %r, %i : !tirx.buffer<32xf32, local, S[(32):(1@laneid)]>, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op operand 'memory' is a local array with a layout ({{.*}}); a thread's local array is a plain 1-D array (lower the register tile's layout first)

// -----

%r, %i = "test.op"() : () -> (!tirx.buffer<8xf32, tmem>, index)
%v = cuda.load %r, %i : !tirx.buffer<8xf32, tmem>, index -> f32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'cuda.load' op operand 'memory' is in tmem; it must be in global, shared, shared.dyn or local
