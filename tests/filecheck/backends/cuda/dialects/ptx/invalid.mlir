// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s

// The ptx verifiers: an instruction the kernel's target lacks (the message names the arch and
// PTX ISA version it needs), modifiers the table does not allow, and operands of the wrong count
// or type. Each section breaks one rule.

tirx.kernel @k() grid [1] threads [128] target "nvidia/nvidia-a100" {
  ptx.wgmma_fence
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'ptx.wgmma_fence' op wgmma.fence.sync.aligned needs sm_90a (PTX ISA 8.0); the kernel targets sm_80

// -----

tirx.kernel @k() grid [1] threads [128] target "cuda -arch=sm_90" {
  ptx.setmaxnreg "dec" 40
  tirx.return
}
// CHECK: error: 'ptx.setmaxnreg' op setmaxnreg.dec.sync.aligned.u32 needs sm_90a or sm_100a or sm_100f or sm_103a or sm_110a or sm_120a (PTX ISA 8.0); the kernel targets sm_90

// -----

tirx.kernel @k() grid [1] threads [128] target "cuda -arch=sm_80" {
  %p, %r = "test.op"() : () -> (i64, i32)
  ptx.stmatrix "x4.shared" [%p], {%r, %r, %r, %r} : (i64, i32, i32, i32, i32) -> ()
  tirx.return
}
// CHECK: error: 'ptx.stmatrix' op stmatrix.sync.aligned.m8n8.x4.shared.b16 needs sm_90 or newer (PTX ISA 7.8); the kernel targets sm_80

// -----

tirx.kernel @k() grid [1] threads [128] target "cuda -arch=sm_86" {
  %r, %f = "test.op"() : () -> (i32, f32)
  %d:4 = ptx.mma_sync "m16n8k32.f32.e4m3.e5m2.f32" {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  tirx.return
}
// CHECK: error: 'ptx.mma_sync' op mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 needs sm_89 or newer (PTX ISA 8.4); the kernel targets sm_86

// -----

tirx.kernel @k() grid [1] threads [128] target "nvidia/nvidia-h100" {
  %f = "test.op"() : () -> f32
  %m = ptx.redux_sync "max.f32" %f, 4294967295 : (f32) -> f32
  tirx.return
}
// CHECK: error: 'ptx.redux_sync' op redux.sync.max.f32 needs sm_100a or sm_100f or sm_103a (PTX ISA 8.6); the kernel targets sm_90a

// -----

tirx.kernel @k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  ptx.griddepcontrol "wait"
  tirx.return
}
// CHECK: error: 'ptx.griddepcontrol' op ptx instructions need a cuda target

// -----

%p = "test.op"() : () -> i64
%v = "ptx.ld"(%p) <{space = "global", type = "f8"}> : (i64) -> f32
// CHECK: error: 'ptx.ld' op 'f8' is not a valid 'type' modifier of ld; choose one of: b16, b32, b64, u16, s16, u32, s32, u64, s64, f32, f64

// -----

%p = "test.op"() : () -> i64
%v = ptx.ld "shared.nc.f32" [%p] : (i64) -> f32
// CHECK: error: 'ptx.ld' op ld.shared.nc.f32: .nc is for weak .global loads only

// -----

%s, %g = "test.op"() : () -> (i32, i64)
ptx.cp_async "cg.shared" [%s], [%g], 8 : (i32, i64) -> ()
// CHECK: error: 'ptx.cp_async' op cp.async.cg.shared.global: cp.async.cg copies 16 bytes; use .ca for 4 or 8

// -----

ptx.setmaxnreg "inc" 512
// CHECK: error: 'ptx.setmaxnreg' op immediate 'count' of setmaxnreg is 512; it must be in [24, 256]

// -----

%f = "test.op"() : () -> f32
%v = ptx.ld "global.f32" [%f] : (f32) -> f32
// CHECK: error: 'ptx.ld' op operand 'addr' of ptx.ld must be i32 or i64 (an address), got f32

// -----

%p = "test.op"() : () -> i64
%v:2 = ptx.ld "global.v4.f32" [%p] : (i64) -> (f32, f32)
// CHECK: error: 'ptx.ld' op ptx.ld with these modifiers takes 4 results (dst x4), got 2

// -----

%p, %r = "test.op"() : () -> (i64, i32)
%a = ptx.atom "global.exch.f32" [%p], %r : (i64, i32) -> i32
// CHECK: error: 'ptx.atom' op atom.global.exch.f32: .exch takes .b32, .b64, not .f32

// -----

%p = "test.op"() : () -> i64
%v = ptx.ld "global.f32.nc" [%p] : (i64) -> f32
// CHECK: error: 'nc' in "global.f32.nc" is not a modifier ld takes at that position; modifiers in order: sem, scope, space, nc, l1, hint, l2, vec, type

// -----

tirx.kernel @k() grid [1] threads [48] target "cuda -arch=sm_80" {
  %p = "test.op"() : () -> i32
  %r = ptx.ldmatrix "x1.shared::cta" [%p] : (i32) -> i32
  tirx.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'ptx.ldmatrix' op threads [48] is not a whole number of warps; ptx.ldmatrix needs all 32 lanes of each warp; launch a multiple of 32 threads per block (e.g. threads [64])

// -----

tirx.kernel @k() grid [1] threads [32, 3] target "cuda -arch=sm_90a" {
  ptx.setmaxnreg "dec" 40
  tirx.return
}
// CHECK: error: 'ptx.setmaxnreg' op threads [32, 3] (96 threads) is not a whole number of warpgroups; ptx.setmaxnreg needs all 128 threads (4 warps) of each warpgroup; launch a multiple of 128 threads per block
