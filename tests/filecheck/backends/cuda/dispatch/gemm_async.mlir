// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// gemm_async wgmma: A [64, 64] and B [128, 64] f16 (K-major) in 128-byte swizzled shared tiles,
// C [64, 128] f32 in the wgmma accumulator registers of the one warpgroup. The accumulators are
// read (here: zeros), then wgmma.fence, one m64n128k16 per K step of 16 (scale-d 0 on the first: no accum),
// commit, wait 0, and the registers are written back. The descriptors' high half is 128B swizzle
// (bit 62), SBO 1024 B, LBO 16 B: 4611686293305360384; each K step advances the start by 32 B
// (2 in the start field). Operands written by ordinary stores are fenced for the async proxy;
// without accum the accumulators enter as zeros (scale-d ignores them).

tirx.kernel @wgmma(%A: !tirx.buffer<64x64xf16, global>, %B: !tirx.buffer<128x64xf16, global>)
    -> (%C: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %sa = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<128x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x128xf32, local>
  tirx.copy cta %sa, %A : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %sb, %B : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
  tirx.gemm_async warpgroup %acc, %sa, %sb : !tirx.buffer<64x128xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  tirx.copy cta %C, %acc : !tirx.buffer<64x128xf32, global>, !tirx.buffer<64x128xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @wgmma
// CHECK:       %sa = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<64x64xf16, shared, swizzle(3,3,3) S[64,64]>
// CHECK:       %acc = tirx.alloc : !tirx.buffer<64x128xf32, local, S[(1,4,2,8,16,4,2):(64,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK:       %[[REGS:.*]] = tirx.alloc : !tirx.buffer<64xf32, local>
// CHECK-NOT:   tirx.gemm_async
// CHECK:       ptx.fence_proxy_async "shared::cta"
// CHECK:       %[[HIGH:.*]] = arith.constant 4611686293305360384 : i64
// CHECK:       %[[DESC_A:.*]] = arith.ori %{{.*}}, %[[HIGH]] : i64
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  ptx.wgmma_fence
// CHECK-NEXT:  %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:  ptx.wgmma_mma_async_ss "m64n128k16.f32.f16.f16" {%[[ZERO]], {{.*}}}, %[[DESC_A]], %{{.*}}, %[[FALSE]], 1, 1, 0, 0
// CHECK:       %[[STEP:.*]] = arith.constant 2 : i64
// CHECK-NEXT:  arith.addi %[[DESC_A]], %[[STEP]] : i64
// CHECK-COUNT-3: ptx.wgmma_mma_async_ss "m64n128k16.f32.f16.f16"
// CHECK-NOT:   ptx.wgmma_mma_async_ss
// CHECK:       ptx.wgmma_commit_group
// CHECK-NEXT:  ptx.wgmma_wait_group 0
// CHECK-NEXT:  arith.constant 0 : index
// CHECK-NEXT:  cuda.store %[[REGS]]

// -----

// transpose_b: B is [K, N] (MN-major, tnsp-b 1): LBO is one 64-column block of 64 K rows,
// 64 * 128 B = 8192 B (512 in the LBO field), SBO 1024 B; N = 128 is two column blocks.

tirx.kernel @wgmma_tb(%A: !tirx.buffer<64x64xf16, global>, %B: !tirx.buffer<64x128xf16, global>)
    -> (%C: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %sa = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x128xf32, local>
  tirx.copy cta %sa, %A : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %sb, %B : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  tirx.gemm_async warpgroup %acc, %sa, %sb transpose_b : !tirx.buffer<64x128xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x128xf16, shared>
  tirx.copy cta %C, %acc : !tirx.buffer<64x128xf32, global>, !tirx.buffer<64x128xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @wgmma_tb
// CHECK:       %sb = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<64x128xf16, shared, swizzle(3,3,3) S[(64,2,64):(64,4096,1)]>
// CHECK:       arith.constant 4611686293338849280 : i64
// CHECK:       ptx.wgmma_mma_async_ss "m64n128k16.f32.f16.f16" {{.*}}, 1, 1, 0, 1

// -----

// The rs form: A [64, 32] f16 in registers, whose default layout is the rs fragment layout (the
// accumulator layout of [64, 32]: 16 f16 a thread); each K step packs its 8 elements into the 4
// b32 operands of wgmma.mma_async, read before the fence; B stays in shared memory.

tirx.kernel @wgmma_rs(%A: !tirx.buffer<64x32xf16, global>, %B: !tirx.buffer<64x32xf16, global>)
    -> (%C: !tirx.buffer<64x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %a = tirx.alloc : !tirx.buffer<64x32xf16, local>
  %sb = tirx.alloc : !tirx.buffer<64x32xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  tirx.copy warpgroup %a, %A : !tirx.buffer<64x32xf16, local>, !tirx.buffer<64x32xf16, global>
  tirx.copy cta %sb, %B : !tirx.buffer<64x32xf16, shared>, !tirx.buffer<64x32xf16, global>
  tirx.gemm_async warpgroup %acc, %a, %sb : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x32xf16, local>, !tirx.buffer<64x32xf16, shared>
  tirx.copy warpgroup %C, %acc : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @wgmma_rs
// CHECK:       %a = tirx.alloc : !tirx.buffer<64x32xf16, local, S[(1,4,2,8,4,4,2):(16,1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
// CHECK:       %[[AREGS:.*]] = tirx.alloc : !tirx.buffer<16xf16, local>
// CHECK-NOT:   tirx.gemm_async
// CHECK:       %[[A0:.*]] = ptx.mov_pack "b32"
// CHECK:       %[[A1:.*]] = ptx.mov_pack "b32"
// CHECK:       %[[A2:.*]] = ptx.mov_pack "b32"
// CHECK:       %[[A3:.*]] = ptx.mov_pack "b32"
// CHECK:       ptx.wgmma_fence
// CHECK-NEXT:  %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:  ptx.wgmma_mma_async_rs "m64n64k16.f32.f16.f16" {{{.*}}}, {%[[A0]], %[[A1]], %[[A2]], %[[A3]]}, %{{.*}}, %[[FALSE]], 1, 1, 0
// CHECK:       ptx.wgmma_mma_async_rs "m64n64k16.f32.f16.f16"
// CHECK-NOT:   ptx.wgmma_mma_async
// CHECK:       ptx.wgmma_commit_group
