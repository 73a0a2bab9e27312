// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// copy_async tma_auto's cache configs. cache_hint: the issuing thread makes one L2 policy
// (createpolicy) after arming the barrier and both boxes take it (.L2::cache_hint, the policy
// as their last operand). prefetch_tensormap: thread 0 prefetches the map at kernel entry,
// before the copy's code.

tirx.kernel @hinted(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x128xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c64 = arith.constant 64 : index
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %a = tirx.slice %A[%c64, %c64] [64, 128] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cache_hint = "evict_first", prefetch_tensormap = true} : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @hinted
// CHECK:       %[[MAP:.*]] = cuda.address %A_tmap0
// CHECK-NEXT:  ptx.prefetch_tensormap [%[[MAP]]] : (i64) -> ()
// CHECK:       ptx.mbarrier_arrive_expect_tx "shared"
// CHECK-NEXT:  %[[POL:.*]] = ptx.createpolicy "L2::evict_first" : () -> i64
// CHECK:       ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster.L2::cache_hint" [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}}], [%{{.*}}], %[[POL]]
// CHECK:       ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster.L2::cache_hint" [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}}], [%{{.*}}], %[[POL]]
// CHECK-NOT:   ptx.createpolicy
// CHECK-NOT:   ptx.prefetch_tensormap
