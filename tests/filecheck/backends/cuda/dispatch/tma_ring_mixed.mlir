// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// A mixed ring (dispatch/tma_ring.py): A's stages come by TMA, B's by cp.async, and one gemm_async
// reads both at stage %s, so the two rings share one full/empty mbarrier pair per stage. The
// full barrier counts the TMA issuer's arrive.expect_tx (1) plus one
// cp.async.mbarrier.arrive.noinc per producer thread (128): 129; the empty barrier the 4
// consumer warps. The producer warpgroup (warpgroup 1) waits once for the stage to be empty,
// at the first copy; thread 128 arms and issues A's box; the producer warpgroup issues B's
// cp.async and arrives on the same full barrier; the consumers wait on it once, fence the
// cp.async writes for wgmma's async proxy and release the stage once (lane 0 of each warp,
// after a __syncwarp).

tirx.kernel @mixed(%A: !tirx.buffer<64x256xf16, global>, %B: !tirx.buffer<64x256xf16, global>) -> (%C: !tirx.buffer<64x64xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %sa = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  tirx.zero cta %acc : !tirx.buffer<64x64xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c2 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%c0, %k0] [64, 64] : !tirx.buffer<64x256xf16, global> -> !tirx.buffer<64x64xf16, global>
    %b = tirx.slice %B[%c0, %k0] [64, 64] : !tirx.buffer<64x256xf16, global> -> !tirx.buffer<64x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "ldgsts" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  }
  tirx.copy cta %C, %acc : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @mixed
// one pair of barrier arrays (no second pair for B)
// CHECK:      %[[FULL:.*]] = tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK-NEXT: %[[EMPTY:.*]] = tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK-NOT:  tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK:      %[[N_FULL:.*]] = arith.constant 129 : i32
// CHECK:      ptx.mbarrier_init "shared" [%{{.*}}], %[[N_FULL]]
// CHECK:      ptx.mbarrier_init "shared" [%{{.*}}], %[[N_FULL]]
// CHECK:      %[[N_EMPTY:.*]] = arith.constant 4 : i32
// CHECK:      ptx.mbarrier_init "shared" [%{{.*}}], %[[N_EMPTY]]
// CHECK:      ptx.mbarrier_init "shared" [%{{.*}}], %[[N_EMPTY]]
// CHECK-NOT:  ptx.mbarrier_init
// CHECK:      scf.for %k
// the producer warpgroup acquires the stage once
// CHECK:      %[[WG:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK:      %[[PRODUCERS:.*]] = arith.cmpi eq, %[[WG]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[PRODUCERS]] {
// CHECK-NEXT:   %{{.*}} = cuda.address %[[EMPTY]], %s
// CHECK:        ptx.mbarrier_try_wait_parity "shared"
// CHECK:      }
// A: thread 128 arms the full barrier with the box's bytes and issues it
// CHECK:      %[[A_FULL:.*]] = cuda.address %[[FULL]], %s
// CHECK-NEXT: %[[BYTES:.*]] = arith.constant 8192 : i32
// CHECK-NEXT: ptx.mbarrier_arrive_expect_tx "shared" [%[[A_FULL]]], %[[BYTES]]
// CHECK:      ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster" [%{{.*}}], [%{{.*}}], [%[[A_FULL]]]
// B: the producer warpgroup's cp.async, no second wait, then one noinc arrival per thread
// CHECK-NOT:  ptx.mbarrier_try_wait_parity
// CHECK-COUNT-4: ptx.cp_async "cg.shared"
// CHECK-NOT:  ptx.mbarrier_try_wait_parity
// CHECK:      %[[B_FULL:.*]] = cuda.address %[[FULL]], %s
// CHECK-NEXT: ptx.cp_async_mbarrier_arrive "noinc.shared" [%[[B_FULL]]]
// the consumers: one full wait, the proxy fence, wgmma, one release: of the previous K step's
// stage (its register holds stage + 1, 0 before the first step), one wgmma group in flight;
// the last stage is released after the loop
// CHECK:      cuda.address %[[FULL]], %s
// CHECK:      ptx.mbarrier_try_wait_parity "shared"
// CHECK-NOT:  ptx.mbarrier_try_wait_parity
// CHECK:      ptx.fence_proxy_async "shared::cta"
// CHECK:      ptx.wgmma_fence
// CHECK:      ptx.wgmma_wait_group 1
// CHECK:      %[[PEND:.*]] = cuda.load %{{.*}}, %{{.*}} : !tirx.buffer<1xi32, local>, index -> i32
// CHECK:      %[[NAMED:.*]] = arith.cmpi ne, %[[PEND]]
// CHECK:      %[[RELEASE:.*]] = cuda.address %[[EMPTY]], %{{.*}}
// CHECK:      cuda.sync_warp
// CHECK:      arith.cmpi eq
// CHECK-NEXT: arith.andi %{{.*}}, %[[NAMED]] : i1
// CHECK-NEXT: scf.if
// CHECK-NEXT:   ptx.mbarrier_arrive "shared" [%[[RELEASE]]]
// CHECK-NOT:  ptx.mbarrier_arrive
// CHECK:      ptx.wgmma_wait_group 0
// CHECK:      %[[LAST:.*]] = cuda.address %[[EMPTY]], %{{.*}}
// CHECK:      ptx.mbarrier_arrive "shared" [%[[LAST]]]
// CHECK-NOT:  ptx.mbarrier_arrive
// CHECK-NOT:  ptx.cp_async_wait
// CHECK:      tirx.return
