// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// copy_async tma_auto with config cta_mask: the 64x128 f16 tile is two 128-byte column boxes;
// after a cluster barrier each CTA's thread 0 arms its own full mbarrier with the whole 16384
// bytes, and box i is issued by the CTA of rank i % 2 with .multicast::cluster to mask 0b11
// (it lands in both CTAs and completes on both full barriers); then every thread waits.

tirx.kernel @multicast(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x128xf16, global>)
    grid [2] threads [128] cluster [2] target "cuda -arch=sm_90a" {
  %c64 = arith.constant 64 : index
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %a = tirx.slice %A[%c64, %c64] [64, 128] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = 3} : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @multicast
// CHECK:       %[[FULL:.*]] = tirx.alloc : !tirx.buffer<1xi64, shared>
// CHECK:       ptx.mbarrier_init "shared"
// CHECK-NOT:   tirx.copy_async
// CHECK:       cuda.sync_cluster
// CHECK:       scf.if
// CHECK:         %[[BAR:.*]] = cuda.address %[[FULL]]
// CHECK:         %[[BYTES:.*]] = arith.constant 16384 : i32
// CHECK:         ptx.mbarrier_arrive_expect_tx "shared" [%[[BAR]]], %[[BYTES]]
// CHECK:         %[[R0:.*]] = cuda.cluster_block_rank : index
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         arith.cmpi eq, %[[R0]], %[[ZERO]] : index
// CHECK:         scf.if
// CHECK:           %[[M0:.*]] = arith.constant 3 : i16
// CHECK:           ptx.cp_async_bulk_tensor_g2s_multicast "2d" [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}}], [%[[BAR]]], %[[M0]]
// CHECK:         %[[R1:.*]] = cuda.cluster_block_rank : index
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         arith.cmpi eq, %[[R1]], %[[ONE]] : index
// CHECK:         scf.if
// CHECK:           ptx.cp_async_bulk_tensor_g2s_multicast "2d"
// CHECK-NOT:   ptx.cp_async_bulk_tensor_g2s
// CHECK:       scf.while
// CHECK:         ptx.mbarrier_try_wait_parity "shared"
