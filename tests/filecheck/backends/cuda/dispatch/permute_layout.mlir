// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,canonicalize,cse | filecheck %s
// tirx.permute_layout on CUDA. warp_xor_swizzle (20): a 32x32 transpose in shared memory, P = 32
// elements per lane; the bank simulation picks k = 5 (j = r ^ lane): phase 1 loads all 32 values,
// __syncwarp, phase 2 stores them; the variant's scope barrier closes it.

tirx.kernel @transpose() grid [1] threads [32] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<32x32xf32, shared>
  %d = tirx.alloc : !tirx.buffer<32x32xf32, shared, S[(32,32):(1,32)]>
  tirx.permute_layout warp %d, %s : !tirx.buffer<32x32xf32, shared, S[(32,32):(1,32)]>, !tirx.buffer<32x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @transpose
// CHECK:       %[[TX:.*]] = cuda.thread_idx x : index
// CHECK:       %[[LANE:.*]] = arith.remui %[[TX]], %{{.*}} : index
// CHECK:       arith.xori %{{.*}}, %{{.*}} : index
// CHECK-COUNT-32: cuda.load %s
// CHECK:       cuda.sync_warp
// CHECK-COUNT-32: cuda.store %d
// CHECK:       cuda.sync_warp
// CHECK-NEXT:  tirx.return

// -----

// fallback (0) at CTA scope: 8 elements per thread, no XOR, __syncthreads between the phases.
tirx.kernel @cta_relayout() grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<32x32xf32, shared>
  %d = tirx.alloc : !tirx.buffer<32x32xf32, shared, S[(32,32):(1,32)]>
  tirx.permute_layout cta %d, %s : !tirx.buffer<32x32xf32, shared, S[(32,32):(1,32)]>, !tirx.buffer<32x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @cta_relayout
// CHECK-NOT:   arith.xori
// CHECK-COUNT-8: cuda.load %s
// CHECK:       cuda.sync_threads
// CHECK-COUNT-8: cuda.store %d
// CHECK:       cuda.sync_threads
// CHECK-NEXT:  tirx.return
