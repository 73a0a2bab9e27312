// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// copy_async tma_auto: a TMA destination gets the 128-byte swizzle (64 f16 columns), the tensor
// map becomes a host-built input parameter, thread 0 arms the mbarrier with the tile's bytes and
// issues one box per swizzled column block; with no gemm_async reading the tile, every thread
// then waits for the copy.

tirx.kernel @tma(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x128xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c64 = arith.constant 64 : index
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %a = tirx.slice %A[%c64, %c64] [64, 128] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @tma(%A: !tirx.buffer<256x256xf16, global>, %A_tmap0: !tirx.buffer<128xi8, global>)
// CHECK-SAME:  cuda.host_tensor_maps = [{param = 1 : i64, source = 0 : i64, box = array<i64: 64, 64>, swizzle = "128B"}]
// CHECK-SAME:  cuda.tensor_maps = array<i64: 1>
// CHECK:       %[[FULL:.*]] = tirx.alloc : !tirx.buffer<1xi64, shared>
// CHECK:       ptx.mbarrier_init "shared"
// CHECK:       %s = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<64x128xf16, shared, swizzle(3,3,3) S[(64,2,64):(64,4096,1)]>
// CHECK-NOT:   tirx.copy_async
// CHECK:       scf.if
// CHECK:         ptx.mbarrier_arrive_expect_tx "shared" [%{{.*}}], %{{.*}} : (i32, i32) -> i64
// CHECK:         cuda.address %A_tmap0
// CHECK:         ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster"
// CHECK:         ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster"
// CHECK-NOT:     ptx.cp_async_bulk_tensor_g2s
// CHECK:       }
// CHECK:       scf.while
// CHECK:         ptx.mbarrier_try_wait_parity "shared"

// -----

// A ring read by gemm_async only is pipelined: the producer (thread 128, the last warpgroup's
// first) waits for the stage to be empty before it arms and issues.

tirx.kernel @ring(%A: !tirx.buffer<128x128xf16, global>, %B: !tirx.buffer<64x128xf16, global>)
    -> (%C: !tirx.buffer<64x64xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %sa = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  scf.for %k = %c0 to %c2 step %c1 {
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%c0, %k0] [64, 64] : !tirx.buffer<128x128xf16, global> -> !tirx.buffer<64x64xf16, global>
    %b = tirx.slice %B[%c0, %k0] [64, 64] : !tirx.buffer<64x128xf16, global> -> !tirx.buffer<64x64xf16, global>
    %sa1 = tirx.slice %sa[%k, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sb1 = tirx.slice %sb[%k, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sat = tirx.reshape %sa1 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    %sbt = tirx.reshape %sb1 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    tirx.copy_async cta %sat, %a dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.copy_async cta %sbt, %b dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.gemm_async cta %acc, %sat, %sbt : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  }
  tirx.copy cta %C, %acc : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @ring
// CHECK-SAME:  %A_tmap0: !tirx.buffer<128xi8, global>, %B_tmap0: !tirx.buffer<128xi8, global>
// CHECK:       %sa = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<2x64x64xf16, shared, swizzle(3,3,3) S[2,64,64]>
// CHECK:       scf.for
// CHECK:         %[[TX:.*]] = cuda.thread_idx x : index
// CHECK:         %[[PRODUCER:.*]] = arith.constant 128 : index
// CHECK:         arith.cmpi eq, %[[TX]], %[[PRODUCER]] : index
// CHECK:         scf.if
// CHECK:           scf.while
// CHECK:             ptx.mbarrier_try_wait_parity "shared"
// CHECK:           ptx.mbarrier_arrive_expect_tx "shared" [%{{.*}}], %{{.*}} : (i32, i32) -> i64
// CHECK:           ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster"

// -----

// A TMA store: the tile (written by generic stores) gets the 128-byte swizzle; the map of the
// output is a host-built input; the fence of the async proxy goes before the copy's own barrier,
// then thread 0 issues one s2g box per column block, commits and waits for the bulk group, and
// the CTA's barrier ends the op.

tirx.kernel @store(%A: !tirx.buffer<64x128xf16, global>) -> (%O: !tirx.buffer<128x128xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  tirx.copy cta %s, %A : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  %o = tirx.slice %O[%c64, %c0] [64, 128] : !tirx.buffer<128x128xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %o, %s dispatch "tma_auto" : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @store(%A: !tirx.buffer<64x128xf16, global>, %O_tmap0: !tirx.buffer<128xi8, global>) -> (%O: !tirx.buffer<128x128xf16, global>)
// CHECK-SAME:  cuda.host_tensor_maps = [{param = 1 : i64, source = 2 : i64, box = array<i64: 64, 64>, swizzle = "128B"}]
// CHECK:       %s = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<64x128xf16, shared, swizzle(3,3,3) S[(64,2,64):(64,4096,1)]>
// CHECK:       ptx.st "shared.v4.b32"
// CHECK:       ptx.fence_proxy_async "shared::cta"
// CHECK-NEXT:  cuda.sync_threads
// CHECK-NOT:   cuda.sync_threads
// CHECK:       scf.if
// CHECK:         cuda.address %O_tmap0
// CHECK:         ptx.cp_async_bulk_tensor_s2g "2d" [%{{.*}}, {%{{.*}}, %{{.*}}}], [%{{.*}}]
// CHECK:         ptx.cp_async_bulk_tensor_s2g "2d"
// CHECK-NEXT:    ptx.cp_async_bulk_commit_group
// CHECK-NEXT:    ptx.cp_async_bulk_wait_group 0
// CHECK-NEXT:  }
// CHECK-NEXT:  cuda.sync_threads
// CHECK-NEXT:  tirx.return

// -----

// A TMA reduce (config use_tma_reduce): the fence covers every state space (the TMA reads the
// global destination too); one cp.reduce.async.bulk.tensor per box.

tirx.kernel @reduce(%A: !tirx.buffer<32x32xf32, global>) -> (%O: !tirx.buffer<32x32xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<32x32xf32, shared>
  tirx.copy cta %s, %A : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>
  tirx.copy_async cta %O, %s dispatch "tma_auto" config {use_tma_reduce = "max"} : !tirx.buffer<32x32xf32, global>, !tirx.buffer<32x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @reduce
// CHECK-SAME:  box = array<i64: 32, 32>, swizzle = "128B"
// CHECK:       ptx.fence_proxy_async{{$}}
// CHECK-NEXT:  cuda.sync_threads
// CHECK:       scf.if
// CHECK:         ptx.cp_reduce_async_bulk_tensor "2d.max" [%{{.*}}, {%{{.*}}, %{{.*}}}], [%{{.*}}]
// CHECK-NOT:     ptx.cp_reduce_async_bulk_tensor
// CHECK:         ptx.cp_async_bulk_commit_group

// -----

// tma_explicit: the region [1, 64, 64] of a rank-3 tensor is the box, its start the coordinates
// (innermost first: 0, 0, %k), one instruction.

tirx.kernel @explicit(%A: !tirx.buffer<4x64x64xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %k = arith.constant 3 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%k, %c0, %c0] [1, 64, 64] : !tirx.buffer<4x64x64xf16, global> -> !tirx.buffer<1x64x64xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_explicit" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<1x64x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @explicit
// CHECK-SAME:  cuda.host_tensor_maps = [{param = 1 : i64, source = 0 : i64, box = array<i64: 1, 64, 64>, swizzle = "128B"}]
// CHECK:       scf.if
// CHECK:         ptx.mbarrier_arrive_expect_tx "shared" [%{{.*}}], %[[BYTES:.*]] : (i32, i32) -> i64
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %[[C3]] : index to i32
// CHECK-NEXT:    ptx.cp_async_bulk_tensor_g2s "3d.shared::cluster" [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}, %[[K]]}], [%{{.*}}]
// CHECK-NOT:     ptx.cp_async_bulk_tensor_g2s
