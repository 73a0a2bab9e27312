// RUN: tirx-opt -t cuda %s | filecheck %s

// Vector loads and stores with cache hints, atomics, fences, static and dynamic shared memory,
// tirx.alloc in shared memory and element addresses.
tirx.kernel @memory(%G: !tirx.buffer<4096xf32, global>, %I: !tirx.buffer<256xi32, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %f1 = arith.constant 1.5 : f32
  %t = cuda.thread_idx x : index
  %i = arith.muli %t, %c4 : index
  %s = cuda.shared_alloc align 128 : !tirx.buffer<512xf32, shared>
  %d = cuda.dynamic_shared offset 256 align 128 : !tirx.buffer<64xi32, shared.dyn>
  %l = tirx.alloc : !tirx.buffer<4xf32, shared>
  %v = cuda.load %G, %i cache cg : !tirx.buffer<4096xf32, global>, index -> vector<4xf32>
  %n = cuda.load %G, %i nc : !tirx.buffer<4096xf32, global>, index -> vector<2xf32>
  %x = cuda.load %G, %t : !tirx.buffer<4096xf32, global>, index -> f32
  cuda.store %G, %i, %v cache cs : !tirx.buffer<4096xf32, global>, index, vector<4xf32>
  cuda.store %s, %i, %v : !tirx.buffer<512xf32, shared>, index, vector<4xf32>
  cuda.store %G, %i, %n : !tirx.buffer<4096xf32, global>, index, vector<2xf32>
  cuda.store %l, %c0, %x : !tirx.buffer<4xf32, shared>, index, f32
  %old = cuda.atomic add %G, %t, %f1 scope sys : !tirx.buffer<4096xf32, global>, index, f32 -> f32
  %m = cuda.atomic max %I, %t, %one scope cta : !tirx.buffer<256xi32, global>, index, i32 -> i32
  %c = cuda.atomic_cas %I, %t, %m, %one : !tirx.buffer<256xi32, global>, index, i32, i32 -> i32
  %ds = cuda.atomic add %d, %c0, %c : !tirx.buffer<64xi32, shared.dyn>, index, i32 -> i32
  cuda.fence cta
  cuda.fence gpu
  cuda.fence sys
  cuda.fence cluster
  %sa = cuda.address %s, %i : !tirx.buffer<512xf32, shared>, index -> i32
  %ga = cuda.address %G, %i : !tirx.buffer<4096xf32, global>, index -> i64
  %sum = arith.addi %ds, %sa : i32
  %w = arith.trunci %ga : i64 to i32
  %all = arith.addi %sum, %w : i32
  cuda.store %I, %t, %all : !tirx.buffer<256xi32, global>, index, i32
  %lx = cuda.load %l, %c0 : !tirx.buffer<4xf32, shared>, index -> f32
  %fo = arith.addf %old, %lx : f32
  cuda.store %G, %t, %fo : !tirx.buffer<4096xf32, global>, index, f32
  tirx.return
}

// CHECK:      // launch with 512 bytes of dynamic shared memory (above 48 KiB, opt in first: cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))
// CHECK-NEXT: extern "C" __global__ void __launch_bounds__(128)
// CHECK-NEXT: memory(float* __restrict__ G, int* __restrict__ I) {
// CHECK-NEXT:   extern __shared__ __align__(128) unsigned char tirx_dynamic_smem[];
// CHECK-NEXT:   const long long t = static_cast<long long>(threadIdx.x);
// CHECK-NEXT:   __shared__ __align__(128) float s[512];
// CHECK-NEXT:   int* const d = reinterpret_cast<int*>(tirx_dynamic_smem + 256);
// CHECK-NEXT:   __shared__ __align__(16) float l[4];
// CHECK-NEXT:   const float4 v = __ldcg(reinterpret_cast<const float4*>(G + (t * 4)));
// CHECK-NEXT:   const float2 n = __ldg(reinterpret_cast<const float2*>(G + (t * 4)));
// CHECK-NEXT:   const float x = *reinterpret_cast<const float*>(G + t);
// CHECK-NEXT:   __stcs(reinterpret_cast<float4*>(G + (t * 4)), v);
// CHECK-NEXT:   *reinterpret_cast<float4*>(s + (t * 4)) = v;
// CHECK-NEXT:   *reinterpret_cast<float2*>(G + (t * 4)) = n;
// CHECK-NEXT:   *reinterpret_cast<float*>(l + 0) = x;
// CHECK-NEXT:   const float old = atomicAdd_system((G + t), 1.5f);
// CHECK-NEXT:   const int m = atomicMax_block((I + t), 1);
// CHECK-NEXT:   const int c = atomicCAS((I + t), m, 1);
// CHECK-NEXT:   const int ds = atomicAdd((d + 0), c);
// CHECK-NEXT:   __threadfence_block();
// CHECK-NEXT:   __threadfence();
// CHECK-NEXT:   __threadfence_system();
// CHECK-NEXT:   asm volatile("fence.acq_rel.cluster;" ::: "memory");
// CHECK-NEXT:   const int sa = static_cast<int>(__cvta_generic_to_shared((s + (t * 4))));
// CHECK-NEXT:   const long long ga = reinterpret_cast<long long>((G + (t * 4)));
