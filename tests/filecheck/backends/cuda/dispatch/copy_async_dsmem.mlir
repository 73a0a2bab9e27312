// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// copy_async dsmem: a [32, 16] column slice of [32, 64] f32 rows is 32 chunks of 64 bytes;
// every thread fences its writes of the source for the async proxy and meets the others, then
// thread 0 maps the peer's inbox (mapa), expects the 2048 bytes on it at cluster scope and
// issues one cp.async.bulk shared::cta -> shared::cluster per row in a loop. The cluster_sync
// after it is the receiving side: barrier.cluster, thread 0 arrives on its inbox, every thread
// waits for the inbox phase (acquire at cluster scope), barrier.cluster again. The inbox is
// initialised at kernel entry, before a cluster barrier.

tirx.kernel @dsmem(%A: !tirx.buffer<32x64xf32, global>) -> (%B: !tirx.buffer<32x64xf32, global>)
    grid [2] threads [128] cluster [2] target "cuda -arch=sm_90a" {
  %r = tirx.cta_id_in_cluster x : index
  %c1 = arith.constant 1 : index
  %peer = arith.xori %r, %c1 : index
  %s = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %d = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.copy cta %s, %A : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, global>
  %sv = tirx.slice %s[0, 16] [32, 16] : !tirx.buffer<32x64xf32, shared> -> !tirx.buffer<32x16xf32, shared>
  %dv = tirx.slice %d[0, 16] [32, 16] : !tirx.buffer<32x64xf32, shared> -> !tirx.buffer<32x16xf32, shared>
  tirx.copy_async cta %dv, %sv remote_cta %peer : !tirx.buffer<32x16xf32, shared>, !tirx.buffer<32x16xf32, shared>, index
  tirx.cluster_sync cluster
  tirx.copy cta %B, %d : !tirx.buffer<32x64xf32, global>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @dsmem
// CHECK:       %[[INBOX:.*]] = tirx.alloc : !tirx.buffer<1xi64, shared>
// CHECK:       scf.if
// CHECK:         ptx.mbarrier_init "shared" [%{{.*}}], %{{.*}} : (i32, i32) -> ()
// CHECK:         ptx.fence_mbarrier_init
// CHECK:       cuda.sync_cluster
// CHECK:       %d = tirx.alloc {cuda.align = 16 : i64, cuda.cluster_visible = 1 : i64}
// CHECK-NOT:   tirx.copy_async
// CHECK:       ptx.fence_proxy_async "shared::cta"
// CHECK-NEXT:  cuda.sync_threads
// CHECK:       scf.if
// CHECK:         %[[RANK:.*]] = arith.index_cast %peer : index to i32
// CHECK:         %[[BAR:.*]] = cuda.address %[[INBOX]]
// CHECK:         %[[RBAR:.*]] = ptx.mapa "u32" %[[BAR]], %[[RANK]]
// CHECK:         %[[TOTAL:.*]] = arith.constant 2048 : i32
// CHECK:         ptx.mbarrier_expect_tx "cluster.shared::cluster" [%[[RBAR]]], %[[TOTAL]]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:           %[[SRC:.*]] = cuda.address %s
// CHECK:           %[[DST:.*]] = cuda.address %d
// CHECK:           %[[RDST:.*]] = ptx.mapa "u32" %[[DST]], %[[RANK]]
// CHECK:           %[[CHUNK:.*]] = arith.constant 64 : i32
// CHECK:           ptx.cp_async_bulk_s2c [%[[RDST]]], [%[[SRC]]], %[[CHUNK]], [%[[RBAR]]]
// CHECK-NOT:       ptx.cp_async_bulk_s2c
// CHECK:       ptx.fence_proxy_async "shared::cta"
// CHECK-NEXT:  cuda.sync_cluster
// CHECK:       scf.if
// CHECK:         ptx.mbarrier_arrive "shared"
// CHECK:       scf.while
// CHECK:         ptx.mbarrier_try_wait_parity "acquire.cluster.shared"
// CHECK:       cuda.sync_cluster
// CHECK-NOT:   cuda.sync_cluster
// CHECK:       tirx.return

// -----

// A cluster_sync in a kernel without remote copies is one cluster barrier.

tirx.kernel @sync_only(%A: !tirx.buffer<64xf32, global>) -> (%B: !tirx.buffer<64xf32, global>)
    grid [2] threads [64] cluster [2] target "cuda -arch=sm_90a" {
  tirx.cluster_sync cluster
  tirx.copy cta %B, %A : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, global>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @sync_only
// CHECK-NOT:   ptx.mbarrier_init
// CHECK:       cuda.sync_cluster
// CHECK-NOT:   cuda.sync_cluster
// CHECK-NOT:   ptx.mbarrier
// CHECK:       tirx.return

// -----

// At warp scope in a CTA of one warp: the warp fences the source and meets at __syncwarp
// (not __syncthreads) before its lane 0 issues the one 4096-byte copy.
tirx.kernel @dsmem_warp(%A: !tirx.buffer<32x32xf32, global>) -> (%B: !tirx.buffer<32x32xf32, global>)
    grid [2] threads [32] cluster [2] target "cuda -arch=sm_90a" {
  %r = tirx.cta_id_in_cluster x : index
  %c1 = arith.constant 1 : index
  %peer = arith.xori %r, %c1 : index
  %s = tirx.alloc : !tirx.buffer<32x32xf32, shared>
  %d = tirx.alloc : !tirx.buffer<32x32xf32, shared>
  tirx.copy warp %s, %A : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>
  tirx.copy_async warp %d, %s remote_cta %peer : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, shared>, index
  tirx.cluster_sync cluster
  tirx.copy warp %B, %d : !tirx.buffer<32x32xf32, global>, !tirx.buffer<32x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @dsmem_warp
// CHECK-NOT:   tirx.copy_async
// CHECK:       ptx.fence_proxy_async "shared::cta"
// CHECK-NEXT:  %{{.*}} = arith.constant -1 : i32
// CHECK-NEXT:  cuda.sync_warp
// CHECK:       scf.if
// CHECK:         ptx.mapa "u32"
// CHECK:         arith.constant 4096 : i32
// CHECK:         ptx.cp_async_bulk_s2c
// CHECK:       cuda.sync_cluster
