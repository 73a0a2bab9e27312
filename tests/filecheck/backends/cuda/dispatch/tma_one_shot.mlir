// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// A one-shot TMA load (dispatch/tma_one_shot.py): A is filled once before the loop and read by
// its gemm_async every iteration, so it is no ring stage (the loop holds no fill of it). Thread
// 128 (the producer warpgroup's) arms A's full barrier and issues the box; only the consumers
// (warpgroup 0, the only readers) wait for its phase, once, before the loop; the loop's
// ring copy and GEMM keep the ring protocol, and nothing fences A for wgmma (TMA wrote it).

tirx.kernel @one_shot(%A: !tirx.buffer<64x64xf16, global>, %B: !tirx.buffer<192x64xf16, global>) -> (%C: !tirx.buffer<64x64xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %sa = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %rb = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  tirx.copy_async cta %sa, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.zero cta %acc : !tirx.buffer<64x64xf32, local>
  scf.for %j = %c0 to %c3 step %c1 {
    %s = arith.remui %j, %c2 : index
    %k0 = arith.muli %j, %c64 : index
    %b = tirx.slice %B[%k0, 0] [64, 64] : !tirx.buffer<192x64xf16, global> -> !tirx.buffer<64x64xf16, global>
    %b3 = tirx.slice %rb[%s, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sb = tirx.reshape %b3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    tirx.copy_async cta %sb, %b dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.gemm_async cta %acc, %sa, %sb accum : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  }
  tirx.copy cta %C, %acc : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @one_shot
// CHECK-NOT:   ptx.fence_proxy_async
// CHECK:       arith.constant 128 : index
// CHECK:       scf.if
// CHECK:         ptx.mbarrier_arrive_expect_tx "shared"
// CHECK:         ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster"
// CHECK:       %[[TX:.*]] = cuda.thread_idx x : index
// CHECK-NEXT:  %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:  %[[WG:.*]] = arith.divui %[[TX]], %[[C128]] : index
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %[[CONSUMER:.*]] = arith.cmpi ult, %[[WG]], %[[C1]] : index
// CHECK-NEXT:  scf.if %[[CONSUMER]] {
// CHECK:         ptx.mbarrier_try_wait_parity "shared"
// CHECK-NOT:   ptx.mbarrier_try_wait_parity
// CHECK:       scf.for %j
// CHECK:         ptx.mbarrier_try_wait_parity "shared"
// CHECK:         ptx.mbarrier_arrive_expect_tx "shared"
// CHECK:         ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster"
// CHECK:         ptx.mbarrier_try_wait_parity "shared"
// CHECK-NOT:     ptx.mbarrier_try_wait_parity
// CHECK-NOT:     ptx.fence_proxy_async
// CHECK:         ptx.wgmma_mma_async_ss
