// REQUIRES: mlir-opt
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --verify-roundtrip -o /dev/null
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | tirx-opt | filecheck %s

// cuda-level IR is valid MLIR: upstream mlir-opt reads the generic form of every cuda op, and
// what it prints back parses and verifies as the same ops.

tirx.kernel @all() grid [4] threads [256] cluster [2] target "cuda -arch=sm_90a" {
  %m, %f, %i, %p, %idx, %g, %s, %h, %d, %gi, %sh = "test.op"() : () -> (i32, f32, i32, i1, index, !tirx.buffer<1024xf32, global>, !tirx.buffer<32xf32, shared>, vector<2xf16>, f64, !tirx.buffer<256xi32, global>, !tirx.buffer<64xf16, shared>)
  %t = cuda.thread_idx x : index
  %bi = cuda.block_idx y : index
  %bd = cuda.block_dim z : index
  %gd = cuda.grid_dim x : index
  %lane = cuda.lane_id : index
  %w = cuda.warp_id : index
  cuda.sync_threads
  %n = cuda.sync_threads_vote count %p : i1 -> i32
  cuda.sync_warp %m : i32
  cuda.sync_warpgroup barrier 1
  cuda.sync_grid
  %y = cuda.shfl_sync xor %m, %f, %i width 16 : i32, f32, i32 -> f32
  %y2 = cuda.shfl_sync idx %m, %d, %i : i32, f64, i32 -> f64
  %b = cuda.vote ballot %m, %p : i32, i1 -> i32
  %all = cuda.vote all %m, %p : i32, i1 -> i1
  %am = cuda.activemask : i32
  %r = cuda.warp_reduce sum %m, %f : i32, f32 -> f32
  %ri = cuda.warp_reduce xor %m, %i width 8 : i32, i32 -> i32
  %cr = cuda.cta_reduce max %f, %s : f32, !tirx.buffer<32xf32, shared> -> f32
  %old = cuda.atomic add %g, %idx, %f scope sys : !tirx.buffer<1024xf32, global>, index, f32 -> f32
  %oi = cuda.atomic max %gi, %idx, %i : !tirx.buffer<256xi32, global>, index, i32 -> i32
  %oc = cuda.atomic_cas %gi, %idx, %i, %i scope cta : !tirx.buffer<256xi32, global>, index, i32, i32 -> i32
  %v = cuda.load %g, %idx cache cg nc : !tirx.buffer<1024xf32, global>, index -> vector<4xf32>
  %x1 = cuda.load %sh, %idx : !tirx.buffer<64xf16, shared>, index -> f16
  %x2 = cuda.load %g, %idx evict evict_first : !tirx.buffer<1024xf32, global>, index -> vector<2xf32>
  cuda.store %g, %idx, %v cache cs : !tirx.buffer<1024xf32, global>, index, vector<4xf32>
  cuda.store %sh, %idx, %h : !tirx.buffer<64xf16, shared>, index, vector<2xf16>
  cuda.fence cta
  cuda.fence sys
  %sa = cuda.shared_alloc align 128 : !tirx.buffer<64x64xf16, shared>
  %sb = cuda.shared_alloc : !tirx.buffer<16xi32, shared>
  %ds = cuda.dynamic_shared offset 256 align 128 : !tirx.buffer<64xf32, shared.dyn>
  %c = cuda.clock64 : i64
  cuda.printf "x=%d y=%5.2f %lld 100%%\n", %i, %f, %c : i32, f32, i64
  cuda.printf "hello\n"
  cuda.nanosleep %i : i32
  cuda.trap
  %e = cuda.fast exp2 %f : f32 -> f32
  %rs = cuda.fast rsqrt %f : f32 -> f32
  %q = cuda.fdividef %f, %f : f32, f32 -> f32
  %pk = cuda.pack %f, %f : f32, f32 -> vector<2xbf16>
  %lo, %hi = cuda.unpack %h : vector<2xf16> -> f32, f32
  %cv = cuda.cvt %f round rz : f32 -> bf16
  %ci = cuda.cvt %f round rd : f32 -> i32
  %cw = cuda.cvt %x1 : f16 -> f32
  %ga = cuda.address %g, %idx : !tirx.buffer<1024xf32, global>, index -> i64
  %saddr = cuda.address %s, %idx : !tirx.buffer<32xf32, shared>, index -> i32
  %ci_k = cuda.cluster_idx x : index
  %cd_k = cuda.cluster_dim x : index
  %cb_k = cuda.cluster_block_idx x : index
  %cr_k = cuda.cluster_block_rank : index
  cuda.sync_cluster
  cuda.sync_warpgroup barrier 2
  cuda.fence cluster
  %e_k = cuda.elect_sync %m : i32 -> i1
  tirx.return
}

// CHECK: %{{[0-9]+}} = cuda.thread_idx x : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.block_idx y : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.block_dim z : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.grid_dim x : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.lane_id : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.warp_id : index
// CHECK-NEXT: cuda.sync_threads
// CHECK-NEXT: %{{[0-9]+}} = cuda.sync_threads_vote count %{{[0-9]+}} : i1 -> i32
// CHECK-NEXT: cuda.sync_warp %{{[0-9]+}} : i32
// CHECK-NEXT: cuda.sync_warpgroup barrier 1
// CHECK-NEXT: cuda.sync_grid
// CHECK-NEXT: %{{[0-9]+}} = cuda.shfl_sync xor %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} width 16 : i32, f32, i32 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.shfl_sync idx %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, f64, i32 -> f64
// CHECK-NEXT: %{{[0-9]+}} = cuda.vote ballot %{{[0-9]+}}, %{{[0-9]+}} : i32, i1 -> i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.vote all %{{[0-9]+}}, %{{[0-9]+}} : i32, i1 -> i1
// CHECK-NEXT: %{{[0-9]+}} = cuda.activemask : i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.warp_reduce sum %{{[0-9]+}}, %{{[0-9]+}} : i32, f32 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.warp_reduce xor %{{[0-9]+}}, %{{[0-9]+}} width 8 : i32, i32 -> i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.cta_reduce max %{{[0-9]+}}, %{{[0-9]+}} : f32, !tirx.buffer<32xf32, shared> -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.atomic add %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} scope sys : !tirx.buffer<1024xf32, global>, index, f32 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.atomic max %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<256xi32, global>, index, i32 -> i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.atomic_cas %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} scope cta : !tirx.buffer<256xi32, global>, index, i32, i32 -> i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.load %{{[0-9]+}}, %{{[0-9]+}} cache cg nc : !tirx.buffer<1024xf32, global>, index -> vector<4xf32>
// CHECK-NEXT: %{{[0-9]+}} = cuda.load %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<64xf16, shared>, index -> f16
// CHECK-NEXT: %{{[0-9]+}} = cuda.load %{{[0-9]+}}, %{{[0-9]+}} evict evict_first : !tirx.buffer<1024xf32, global>, index -> vector<2xf32>
// CHECK-NEXT: cuda.store %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} cache cs : !tirx.buffer<1024xf32, global>, index, vector<4xf32>
// CHECK-NEXT: cuda.store %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<64xf16, shared>, index, vector<2xf16>
// CHECK-NEXT: cuda.fence cta
// CHECK-NEXT: cuda.fence sys
// CHECK-NEXT: %{{[0-9]+}} = cuda.shared_alloc align 128 : !tirx.buffer<64x64xf16, shared>
// CHECK-NEXT: %{{[0-9]+}} = cuda.shared_alloc : !tirx.buffer<16xi32, shared>
// CHECK-NEXT: %{{[0-9]+}} = cuda.dynamic_shared offset 256 align 128 : !tirx.buffer<64xf32, shared.dyn>
// CHECK-NEXT: %{{[0-9]+}} = cuda.clock64 : i64
// CHECK-NEXT: cuda.printf "x=%d y=%{{[0-9]+}}.2f %lld 100%%\0A", %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, f32, i64
// CHECK-NEXT: cuda.printf "hello\0A"
// CHECK-NEXT: cuda.nanosleep %{{[0-9]+}} : i32
// CHECK-NEXT: cuda.trap
// CHECK-NEXT: %{{[0-9]+}} = cuda.fast exp2 %{{[0-9]+}} : f32 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.fast rsqrt %{{[0-9]+}} : f32 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.fdividef %{{[0-9]+}}, %{{[0-9]+}} : f32, f32 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.pack %{{[0-9]+}}, %{{[0-9]+}} : f32, f32 -> vector<2xbf16>
// CHECK-NEXT: %{{[0-9]+}}, %{{[0-9]+}} = cuda.unpack %{{[0-9]+}} : vector<2xf16> -> f32, f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.cvt %{{[0-9]+}} round rz : f32 -> bf16
// CHECK-NEXT: %{{[0-9]+}} = cuda.cvt %{{[0-9]+}} round rd : f32 -> i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.cvt %{{[0-9]+}} : f16 -> f32
// CHECK-NEXT: %{{[0-9]+}} = cuda.address %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<1024xf32, global>, index -> i64
// CHECK-NEXT: %{{[0-9]+}} = cuda.address %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<32xf32, shared>, index -> i32
// CHECK-NEXT: %{{[0-9]+}} = cuda.cluster_idx x : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.cluster_dim x : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.cluster_block_idx x : index
// CHECK-NEXT: %{{[0-9]+}} = cuda.cluster_block_rank : index
// CHECK-NEXT: cuda.sync_cluster
// CHECK-NEXT: cuda.sync_warpgroup barrier 2
// CHECK-NEXT: cuda.fence cluster
// CHECK-NEXT: %{{[0-9]+}} = cuda.elect_sync %{{[0-9]+}} : i32 -> i1
