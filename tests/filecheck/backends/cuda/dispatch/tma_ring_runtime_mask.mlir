// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// A pipelined TMA ring (TMA writers, gemm_async readers) whose copy multicasts with a cta_mask
// computed at run time (here (1 << x) | (1 << (1 - x)): both CTAs of the cluster). The writer
// bits are computed at kernel entry (the rank's own bit or-ed with the mask, recomputed there
// from its definition) into a private register; thread 0 initialises the empty barriers with
// 4 consumer warps times their popcount; after its wgmma each consumer warp arrives on the
// empty barrier of each CTA whose bit it holds (lane p for CTA p, after a __syncwarp).

tirx.kernel @ring(%A: !tirx.buffer<128x256xf16, global>, %B: !tirx.buffer<128x256xf16, global>) -> (%C: !tirx.buffer<128x128xf32, global>)
    grid [2] threads [256] cluster [2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %o1 = arith.subi %c1, %bx : index
  %h0 = arith.shli %c1, %bx : index
  %h1 = arith.shli %c1, %o1 : index
  %m = arith.ori %h0, %h1 : index
  %sb = tirx.alloc : !tirx.buffer<2x128x64xf16, shared>
  %sa = tirx.alloc : !tirx.buffer<2x128x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c2 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%c0, %k0] [128, 64] : !tirx.buffer<128x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 128, 64] : !tirx.buffer<2x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    %b = tirx.slice %B[%c0, %k0] [128, 64] : !tirx.buffer<128x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 128, 64] : !tirx.buffer<2x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    tirx.copy_async cta %sbs, %b cta_mask %m dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>, index
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  }
  tirx.copy cta %C, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @ring
// the writer bits at kernel entry: the rank's own bit, or-ed with the recomputed mask
// CHECK:      %[[RANK:.*]] = cuda.cluster_block_rank : index
// CHECK:      %[[SELF:.*]] = arith.select
// CHECK:      %[[X:.*]] = tirx.cta_id x : index
// CHECK:      %[[MASK:.*]] = arith.ori
// CHECK-NEXT: %[[MASK32:.*]] = arith.index_cast %[[MASK]] : index to i32
// CHECK-NEXT: %[[BITS:.*]] = arith.ori %[[SELF]], %[[MASK32]] : i32
// CHECK:      cuda.store %[[REG:.*]], %{{.*}}, %[[BITS]] : !tirx.buffer<1xi32, local>
// thread 0: the empty barriers count 4 consumer warps per writer bit
// CHECK:      %[[HELD:.*]] = cuda.load %[[REG]]
// CHECK:      %[[N:.*]] = arith.addi
// CHECK:      %[[COUNT:.*]] = arith.muli %[[N]], %{{.*}} : i32
// CHECK:      ptx.mbarrier_init "shared" [%{{.*}}], %[[COUNT]]
// CHECK:      cuda.sync_cluster
// the consumers' release (of the previous K step's stage: wait_group 1 keeps one wgmma group
// in flight): one predicated remote arrive per peer, by that peer's lane
// CHECK:      ptx.wgmma_wait_group 1
// CHECK:      cuda.sync_warp
// CHECK:      %[[W:.*]] = cuda.load %[[REG]]
// CHECK:      %[[B0:.*]] = arith.andi
// CHECK:      %[[H0:.*]] = arith.cmpi ne, %[[B0]]
// CHECK:      %[[L0:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[P0:.*]] = arith.andi %[[L0]], %[[H0]] : i1
// CHECK-NEXT: %[[Q0:.*]] = arith.andi %[[P0]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[Q0]] {
// CHECK:        ptx.mapa "u32"
// CHECK-NEXT:   ptx.mbarrier_arrive "shared::cluster"
// CHECK-NEXT: }
// CHECK:      %[[B1:.*]] = arith.andi
// CHECK:      %[[H1:.*]] = arith.cmpi ne, %[[B1]]
// CHECK:      %[[L1:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[P1:.*]] = arith.andi %[[L1]], %[[H1]] : i1
// CHECK-NEXT: %[[Q1:.*]] = arith.andi %[[P1]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[Q1]] {
// CHECK:        ptx.mapa "u32"
// CHECK-NEXT:   ptx.mbarrier_arrive "shared::cluster"
// CHECK-NEXT: }
// the last stage, released after the loop (one wgmma group was in flight), to the same CTAs
// CHECK:      ptx.wgmma_wait_group 0
// CHECK:      ptx.mbarrier_arrive "shared::cluster"
// CHECK:      ptx.mbarrier_arrive "shared::cluster"
// CHECK-NOT:  ptx.mbarrier_arrive "shared::cluster"
// CHECK:      tirx.return
