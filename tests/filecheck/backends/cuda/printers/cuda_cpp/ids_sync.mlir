// RUN: tirx-opt -t cuda %s | filecheck %s

// Thread, block, cluster ids and the barriers, on a cluster launch (sm_90a).
tirx.kernel @ids(%Out: !tirx.buffer<1024xi32, global>) grid [8] threads [128] cluster [2]
    target "cuda -arch=sm_90a" {
  %full = arith.constant -1 : i32
  %p = arith.constant true
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx y : index
  %bd = cuda.block_dim z : index
  %gd = cuda.grid_dim x : index
  %ci = cuda.cluster_idx x : index
  %cd = cuda.cluster_dim x : index
  %cb = cuda.cluster_block_idx x : index
  %cr = cuda.cluster_block_rank : index
  %lane = cuda.lane_id : index
  %w = cuda.warp_id : index
  cuda.sync_threads
  %n = cuda.sync_threads_vote count %p : i1 -> i32
  cuda.sync_warp %full : i32
  cuda.sync_warpgroup barrier 1
  cuda.sync_warpgroup barrier 3 per_warpgroup
  cuda.sync_cluster
  %e = cuda.elect_sync %full : i32 -> i1
  %s0 = arith.addi %t, %b : index
  %s1 = arith.addi %s0, %bd : index
  %s2 = arith.addi %s1, %gd : index
  %s3 = arith.addi %s2, %ci : index
  %s4 = arith.addi %s3, %cd : index
  %s5 = arith.addi %s4, %cb : index
  %s6 = arith.addi %s5, %cr : index
  %s7 = arith.addi %s6, %lane : index
  %s8 = arith.addi %s7, %w : index
  scf.if %e {
    cuda.store %Out, %s8, %n : !tirx.buffer<1024xi32, global>, index, i32
  }
  tirx.return
}

// CHECK:      extern "C" __global__ void __launch_bounds__(128) __cluster_dims__(2)
// CHECK-NEXT: ids(int* __restrict__ Out) {
// CHECK-NEXT:   const long long t = static_cast<long long>(threadIdx.x);
// CHECK-NEXT:   const long long b = static_cast<long long>(blockIdx.y);
// CHECK-NEXT:   const long long bd = static_cast<long long>(blockDim.z);
// CHECK-NEXT:   const long long gd = static_cast<long long>(gridDim.x);
// CHECK:        asm("mov.u32 %0, %%clusterid.x;" : "=r"(ci_u32));
// CHECK:        asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(cd_u32));
// CHECK:        asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cb_u32));
// CHECK:        asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(cr_u32));
// CHECK:        asm("mov.u32 %0, %%laneid;" : "=r"(lane_u32));
// CHECK:        const long long w = static_cast<long long>(threadIdx.x / 32);
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   const int n = __syncthreads_count(1);
// CHECK-NEXT:   __syncwarp(static_cast<unsigned int>((-1)));
// CHECK-NEXT:   asm volatile("bar.sync 1, 128;" ::: "memory");
// CHECK-NEXT:   asm volatile("bar.sync %0, 128;" :: "r"(3 + threadIdx.x / 128) : "memory");
// CHECK-NEXT:   asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
// CHECK:        elect.sync lane|p, %1; selp.u32 %0, 1, 0, p;
// CHECK-NEXT:   const bool e = e_u32 != 0u;
// CHECK-NEXT:   if (e) {
