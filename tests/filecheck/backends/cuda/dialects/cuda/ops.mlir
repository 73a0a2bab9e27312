// RUN: TIRX_ROUNDTRIP
// RUN: TIRX_GENERIC_ROUNDTRIP

// Every cuda op in custom form round-trips, and so does the generic form (CHECK-GENERIC).
// Outside a kernel only the type and scope rules apply; the last section is a kernel whose
// launch (a cluster of whole warpgroups) and target (sm_90a) the cluster ops need.

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
%sa32 = cuda.address %s, %idx : !tirx.buffer<32xf32, shared>, index -> i32

// CHECK: %t = cuda.thread_idx x : index
// CHECK-NEXT: %bi = cuda.block_idx y : index
// CHECK-NEXT: %bd = cuda.block_dim z : index
// CHECK-NEXT: %gd = cuda.grid_dim x : index
// CHECK-NEXT: %lane = cuda.lane_id : index
// CHECK-NEXT: %w = cuda.warp_id : index
// CHECK-NEXT: cuda.sync_threads
// CHECK-NEXT: %n = cuda.sync_threads_vote count %p : i1 -> i32
// CHECK-NEXT: cuda.sync_warp %m : i32
// CHECK-NEXT: cuda.sync_warpgroup barrier 1
// CHECK-NEXT: cuda.sync_grid
// CHECK-NEXT: %y = cuda.shfl_sync xor %m, %f, %i width 16 : i32, f32, i32 -> f32
// CHECK-NEXT: %y2 = cuda.shfl_sync idx %m, %d, %i : i32, f64, i32 -> f64
// CHECK-NEXT: %b = cuda.vote ballot %m, %p : i32, i1 -> i32
// CHECK-NEXT: %all = cuda.vote all %m, %p : i32, i1 -> i1
// CHECK-NEXT: %am = cuda.activemask : i32
// CHECK-NEXT: %r = cuda.warp_reduce sum %m, %f : i32, f32 -> f32
// CHECK-NEXT: %ri = cuda.warp_reduce xor %m, %i width 8 : i32, i32 -> i32
// CHECK-NEXT: %cr = cuda.cta_reduce max %f, %s : f32, !tirx.buffer<32xf32, shared> -> f32
// CHECK-NEXT: %old = cuda.atomic add %g, %idx, %f scope sys : !tirx.buffer<1024xf32, global>, index, f32 -> f32
// CHECK-NEXT: %oi = cuda.atomic max %gi, %idx, %i : !tirx.buffer<256xi32, global>, index, i32 -> i32
// CHECK-NEXT: %oc = cuda.atomic_cas %gi, %idx, %i, %i scope cta : !tirx.buffer<256xi32, global>, index, i32, i32 -> i32
// CHECK-NEXT: %v = cuda.load %g, %idx cache cg nc : !tirx.buffer<1024xf32, global>, index -> vector<4xf32>
// CHECK-NEXT: %x1 = cuda.load %sh, %idx : !tirx.buffer<64xf16, shared>, index -> f16
// CHECK-NEXT: %x2 = cuda.load %g, %idx evict evict_first : !tirx.buffer<1024xf32, global>, index -> vector<2xf32>
// CHECK-NEXT: cuda.store %g, %idx, %v cache cs : !tirx.buffer<1024xf32, global>, index, vector<4xf32>
// CHECK-NEXT: cuda.store %sh, %idx, %h : !tirx.buffer<64xf16, shared>, index, vector<2xf16>
// CHECK-NEXT: cuda.fence cta
// CHECK-NEXT: cuda.fence sys
// CHECK-NEXT: %sa = cuda.shared_alloc align 128 : !tirx.buffer<64x64xf16, shared>
// CHECK-NEXT: %sb = cuda.shared_alloc : !tirx.buffer<16xi32, shared>
// CHECK-NEXT: %ds = cuda.dynamic_shared offset 256 align 128 : !tirx.buffer<64xf32, shared.dyn>
// CHECK-NEXT: %c = cuda.clock64 : i64
// CHECK-NEXT: cuda.printf "x=%d y=%5.2f %lld 100%%\0A", %i, %f, %c : i32, f32, i64
// CHECK-NEXT: cuda.printf "hello\0A"
// CHECK-NEXT: cuda.nanosleep %i : i32
// CHECK-NEXT: cuda.trap
// CHECK-NEXT: %e = cuda.fast exp2 %f : f32 -> f32
// CHECK-NEXT: %rs = cuda.fast rsqrt %f : f32 -> f32
// CHECK-NEXT: %q = cuda.fdividef %f, %f : f32, f32 -> f32
// CHECK-NEXT: %pk = cuda.pack %f, %f : f32, f32 -> vector<2xbf16>
// CHECK-NEXT: %lo, %hi = cuda.unpack %h : vector<2xf16> -> f32, f32
// CHECK-NEXT: %cv = cuda.cvt %f round rz : f32 -> bf16
// CHECK-NEXT: %ci = cuda.cvt %f round rd : f32 -> i32
// CHECK-NEXT: %cw = cuda.cvt %x1 : f16 -> f32
// CHECK-NEXT: %ga = cuda.address %g, %idx : !tirx.buffer<1024xf32, global>, index -> i64
// CHECK-NEXT: %sa32 = cuda.address %s, %idx : !tirx.buffer<32xf32, shared>, index -> i32
// CHECK-GENERIC: %t = "cuda.thread_idx"() <{dim = "x"}> : () -> index
// CHECK-GENERIC: %bi = "cuda.block_idx"() <{dim = "y"}> : () -> index
// CHECK-GENERIC: %bd = "cuda.block_dim"() <{dim = "z"}> : () -> index
// CHECK-GENERIC: %gd = "cuda.grid_dim"() <{dim = "x"}> : () -> index
// CHECK-GENERIC: %lane = "cuda.lane_id"() : () -> index
// CHECK-GENERIC: %w = "cuda.warp_id"() : () -> index
// CHECK-GENERIC: "cuda.sync_threads"() : () -> ()
// CHECK-GENERIC: %n = "cuda.sync_threads_vote"(%p) <{mode = "count"}> : (i1) -> i32
// CHECK-GENERIC: "cuda.sync_warp"(%m) : (i32) -> ()
// CHECK-GENERIC: "cuda.sync_warpgroup"() <{barrier = 1 : i64}> : () -> ()
// CHECK-GENERIC: "cuda.sync_grid"() : () -> ()
// CHECK-GENERIC: %y = "cuda.shfl_sync"(%m, %f, %i) <{mode = "xor", width = 16 : i64}> : (i32, f32, i32) -> f32
// CHECK-GENERIC: %y2 = "cuda.shfl_sync"(%m, %d, %i) <{mode = "idx"}> : (i32, f64, i32) -> f64
// CHECK-GENERIC: %b = "cuda.vote"(%m, %p) <{mode = "ballot"}> : (i32, i1) -> i32
// CHECK-GENERIC: %all = "cuda.vote"(%m, %p) <{mode = "all"}> : (i32, i1) -> i1
// CHECK-GENERIC: %am = "cuda.activemask"() : () -> i32
// CHECK-GENERIC: %r = "cuda.warp_reduce"(%m, %f) <{op = "sum"}> : (i32, f32) -> f32
// CHECK-GENERIC: %ri = "cuda.warp_reduce"(%m, %i) <{op = "xor", width = 8 : i64}> : (i32, i32) -> i32
// CHECK-GENERIC: %cr = "cuda.cta_reduce"(%f, %s) <{op = "max"}> : (f32, !tirx.buffer<32xf32, shared>) -> f32
// CHECK-GENERIC: %old = "cuda.atomic"(%g, %idx, %f) <{op = "add", scope = "sys"}> : (!tirx.buffer<1024xf32, global>, index, f32) -> f32
// CHECK-GENERIC: %oi = "cuda.atomic"(%gi, %idx, %i) <{op = "max"}> : (!tirx.buffer<256xi32, global>, index, i32) -> i32
// CHECK-GENERIC: %oc = "cuda.atomic_cas"(%gi, %idx, %i, %i) <{scope = "cta"}> : (!tirx.buffer<256xi32, global>, index, i32, i32) -> i32
// CHECK-GENERIC: %v = "cuda.load"(%g, %idx) <{cache = "cg", nc}> : (!tirx.buffer<1024xf32, global>, index) -> vector<4xf32>
// CHECK-GENERIC: %x1 = "cuda.load"(%sh, %idx) : (!tirx.buffer<64xf16, shared>, index) -> f16
// CHECK-GENERIC: %x2 = "cuda.load"(%g, %idx) <{evict = "evict_first"}> : (!tirx.buffer<1024xf32, global>, index) -> vector<2xf32>
// CHECK-GENERIC: "cuda.store"(%g, %idx, %v) <{cache = "cs"}> : (!tirx.buffer<1024xf32, global>, index, vector<4xf32>) -> ()
// CHECK-GENERIC: "cuda.store"(%sh, %idx, %h) : (!tirx.buffer<64xf16, shared>, index, vector<2xf16>) -> ()
// CHECK-GENERIC: "cuda.fence"() <{scope = "cta"}> : () -> ()
// CHECK-GENERIC: "cuda.fence"() <{scope = "sys"}> : () -> ()
// CHECK-GENERIC: %sa = "cuda.shared_alloc"() <{align = 128 : i64}> : () -> !tirx.buffer<64x64xf16, shared>
// CHECK-GENERIC: %sb = "cuda.shared_alloc"() : () -> !tirx.buffer<16xi32, shared>
// CHECK-GENERIC: %ds = "cuda.dynamic_shared"() <{offset = 256 : i64, align = 128 : i64}> : () -> !tirx.buffer<64xf32, shared.dyn>
// CHECK-GENERIC: %c = "cuda.clock64"() : () -> i64
// CHECK-GENERIC: "cuda.printf"(%i, %f, %c) <{format = "x=%d y=%5.2f %lld 100%%\0A"}> : (i32, f32, i64) -> ()
// CHECK-GENERIC: "cuda.printf"() <{format = "hello\0A"}> : () -> ()
// CHECK-GENERIC: "cuda.nanosleep"(%i) : (i32) -> ()
// CHECK-GENERIC: "cuda.trap"() : () -> ()
// CHECK-GENERIC: %e = "cuda.fast"(%f) <{func = "exp2"}> : (f32) -> f32
// CHECK-GENERIC: %rs = "cuda.fast"(%f) <{func = "rsqrt"}> : (f32) -> f32
// CHECK-GENERIC: %q = "cuda.fdividef"(%f, %f) : (f32, f32) -> f32
// CHECK-GENERIC: %pk = "cuda.pack"(%f, %f) : (f32, f32) -> vector<2xbf16>
// CHECK-GENERIC: %lo, %hi = "cuda.unpack"(%h) : (vector<2xf16>) -> (f32, f32)
// CHECK-GENERIC: %cv = "cuda.cvt"(%f) <{round = "rz"}> : (f32) -> bf16
// CHECK-GENERIC: %ci = "cuda.cvt"(%f) <{round = "rd"}> : (f32) -> i32
// CHECK-GENERIC: %cw = "cuda.cvt"(%x1) : (f16) -> f32
// CHECK-GENERIC: %ga = "cuda.address"(%g, %idx) : (!tirx.buffer<1024xf32, global>, index) -> i64
// CHECK-GENERIC: %sa32 = "cuda.address"(%s, %idx) : (!tirx.buffer<32xf32, shared>, index) -> i32

// -----

// Inside a kernel the launch and the target are known: clusters, elect.sync and warpgroup
// barriers on sm_90a with a cluster launch of whole warpgroups.
tirx.kernel @k() grid [4] threads [256] cluster [2] target "cuda -arch=sm_90a" {
  %m = "test.op"() : () -> i32
  %ci = cuda.cluster_idx x : index
  %cd = cuda.cluster_dim x : index
  %cb = cuda.cluster_block_idx x : index
  %cr = cuda.cluster_block_rank : index
  cuda.sync_cluster
  cuda.sync_warpgroup barrier 2
  cuda.fence cluster
  %e = cuda.elect_sync %m : i32 -> i1
  tirx.return
}

// CHECK: tirx.kernel @k() grid [4] threads [256] cluster [2] target "cuda -arch=sm_90a" {
// CHECK: %ci = cuda.cluster_idx x : index
// CHECK-NEXT: %cd = cuda.cluster_dim x : index
// CHECK-NEXT: %cb = cuda.cluster_block_idx x : index
// CHECK-NEXT: %cr = cuda.cluster_block_rank : index
// CHECK-NEXT: cuda.sync_cluster
// CHECK-NEXT: cuda.sync_warpgroup barrier 2
// CHECK-NEXT: cuda.fence cluster
// CHECK-NEXT: %e = cuda.elect_sync %m : i32 -> i1
// CHECK-GENERIC: %ci = "cuda.cluster_idx"() <{dim = "x"}> : () -> index
// CHECK-GENERIC: %cd = "cuda.cluster_dim"() <{dim = "x"}> : () -> index
// CHECK-GENERIC: %cb = "cuda.cluster_block_idx"() <{dim = "x"}> : () -> index
// CHECK-GENERIC: %cr = "cuda.cluster_block_rank"() : () -> index
// CHECK-GENERIC: "cuda.sync_cluster"() : () -> ()
// CHECK-GENERIC: "cuda.sync_warpgroup"() <{barrier = 2 : i64}> : () -> ()
// CHECK-GENERIC: "cuda.fence"() <{scope = "cluster"}> : () -> ()
// CHECK-GENERIC: %e = "cuda.elect_sync"(%m) : (i32) -> i1

// A thread's local array (a register tile after dispatch): loads and stores of 1, 2 or 4
// elements at constant indices, and at a dynamic one (local memory on the hardware).
tirx.kernel @regs(%out: !tirx.buffer<64xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %t = cuda.thread_idx x : index
  %acc = tirx.alloc : !tirx.buffer<8xf32, local>
  %x = cuda.load %out, %t : !tirx.buffer<64xf32, global>, index -> f32
  cuda.store %acc, %c0, %x : !tirx.buffer<8xf32, local>, index, f32
  %v4 = cuda.load %acc, %c4 : !tirx.buffer<8xf32, local>, index -> vector<4xf32>
  %y = cuda.load %acc, %t : !tirx.buffer<8xf32, local>, index -> f32
  tirx.return
}

// CHECK: tirx.kernel @regs(%out: !tirx.buffer<64xf32, global>)
// CHECK: %acc = tirx.alloc : !tirx.buffer<8xf32, local>
// CHECK: cuda.store %acc, %c0, %x : !tirx.buffer<8xf32, local>, index, f32
// CHECK-NEXT: %v4 = cuda.load %acc, %c4 : !tirx.buffer<8xf32, local>, index -> vector<4xf32>
// CHECK-NEXT: %y = cuda.load %acc, %t : !tirx.buffer<8xf32, local>, index -> f32
// CHECK-GENERIC: %v4 = "cuda.load"(%acc, %c4) : (!tirx.buffer<8xf32, local>, index) -> vector<4xf32>
