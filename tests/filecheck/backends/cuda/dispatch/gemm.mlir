// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// tirx.gemm variant mma.m16n8k*: the accumulator gets the m16n8 fragment layout over the warp
// grid; shared operands are read with ldmatrix (.trans for a K-major B: rows of N contiguous),
// each m16n8 tile is one mma.sync per K step of 16, accumulators go back to the register array.

tirx.kernel @cta_gemm() grid [1] threads [128] target "cuda -arch=sm_80" {
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  %a = tirx.alloc : !tirx.buffer<64x32xf16, shared, swizzle(3,2,3) S[64,32]>
  %b = tirx.alloc : !tirx.buffer<32x64xf16, shared, swizzle(3,3,3) S[32,64]>
  tirx.gemm cta %acc, %a, %b beta 1.0 : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x32xf16, shared, swizzle(3,2,3) S[64,32]>, !tirx.buffer<32x64xf16, shared, swizzle(3,3,3) S[32,64]>
  tirx.return
}

// CHECK-LABEL: @cta_gemm
// CHECK:       %acc = tirx.alloc : !tirx.buffer<64x64xf32, local, S[(2,2,2,8,2,4,4,2):(2@warpid,16,2,4@laneid,1@warpid,4,1@laneid,1)]>
// CHECK:       %[[REGS:.*]] = tirx.alloc : !tirx.buffer<32xf32, local>
// CHECK:       cuda.load %[[REGS]], %{{.*}} : !tirx.buffer<32xf32, local>, index -> f32
// CHECK-COUNT-2: ptx.ldmatrix "x4.shared"
// CHECK-COUNT-2: ptx.ldmatrix "x4.trans.shared"
// CHECK-COUNT-8: ptx.mma_sync "m16n8k16.f32.f16.f16.f32"
// CHECK-COUNT-2: ptx.ldmatrix "x4.shared"
// CHECK-COUNT-2: ptx.ldmatrix "x4.trans.shared"
// CHECK-COUNT-8: ptx.mma_sync "m16n8k16.f32.f16.f16.f32"
// CHECK:       cuda.store %[[REGS]]
// CHECK:       cuda.sync_threads
// CHECK-NOT:   tirx.gemm

// -----

// Register operands: the fragments are read from the tiles' own registers and packed in pairs;
// beta 0 starts from zero.

tirx.kernel @warp_regs() grid [1] threads [32] target "cuda -arch=sm_80" {
  %acc = tirx.alloc : !tirx.buffer<16x8xf32, local>
  %a = tirx.alloc : !tirx.buffer<16x16xbf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
  %b = tirx.alloc : !tirx.buffer<16x8xbf16, local, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
  tirx.gemm warp %acc, %a, %b : !tirx.buffer<16x8xf32, local>, !tirx.buffer<16x16xbf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>, !tirx.buffer<16x8xbf16, local, S[(2,4,2,8):(2,1@laneid,1,4@laneid)]>
  tirx.return
}

// CHECK-LABEL: @warp_regs
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-COUNT-6: ptx.mov_pack "b32"
// CHECK:       ptx.mma_sync "m16n8k16.f32.bf16.bf16.f32" {{.*}}, {%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]]}
// CHECK-NOT:   ptx.ldmatrix

// -----

// f32 operands run as tf32: m16n8k8, each element rounded with cvt.rna.tf32.f32.

tirx.kernel @tf32() grid [1] threads [32] target "cuda -arch=sm_80" {
  %acc = tirx.alloc : !tirx.buffer<16x8xf32, local>
  %a = tirx.alloc : !tirx.buffer<16x8xf32, shared>
  %b = tirx.alloc : !tirx.buffer<8x8xf32, shared>
  tirx.gemm warp %acc, %a, %b : !tirx.buffer<16x8xf32, local>, !tirx.buffer<16x8xf32, shared>, !tirx.buffer<8x8xf32, shared>
  tirx.return
}

// CHECK-LABEL: @tf32
// CHECK-COUNT-6: ptx.cvt_tf32 "rna"
// CHECK:       ptx.mma_sync "m16n8k8.f32.tf32.tf32.f32"
