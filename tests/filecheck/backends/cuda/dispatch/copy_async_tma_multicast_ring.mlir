// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// A pipelined ring (dispatch/tma_ring.py) whose tiles are multicast along the rows of a 2x2
// cluster (rank x + 2y; masks 0b0011, 0b0011, 0b1100, 0b1100) beside a plain ring. A stage of
// A is written by the two CTAs of the row: its empty barriers count the 4 consumer warps of
// both (8), are initialised before a cluster barrier, and each consumer warp releases it on
// empty[s] of the CTAs of its row after a __syncwarp (lane p for peer p), each arrival
// predicated on the rank being in that peer's row (the bit set 0b0011 for ranks 0 and 1,
// 0b1100 for 2 and 3). B's ring, plain, counts this CTA's 4 consumer warps, released locally
// by lane 0 of each; the kernel ends with a cluster barrier.

tirx.kernel @row_ring(%A: !tirx.buffer<128x128xf16, global>, %B: !tirx.buffer<128x128xf16, global>)
    -> (%C: !tirx.buffer<64x64xf32, global>) grid [2, 2] threads [256] cluster [2, 2] target "cuda -arch=sm_90a" {
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %m0 = arith.muli %by, %c64 : index
  %sa = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  tirx.zero cta %acc : !tirx.buffer<64x64xf32, local>
  scf.for %k = %c0 to %c2 step %c1 {
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%m0, %k0] [64, 64] : !tirx.buffer<128x128xf16, global> -> !tirx.buffer<64x64xf16, global>
    %b = tirx.slice %B[%c0, %k0] [64, 64] : !tirx.buffer<128x128xf16, global> -> !tirx.buffer<64x64xf16, global>
    %sa3 = tirx.slice %sa[%k, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sb3 = tirx.slice %sb[%k, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" config {cta_mask = array<i64: 3, 3, 12, 12>} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  }
  tirx.return
}

// CHECK-LABEL: tirx.kernel @row_ring
// CHECK:       %[[AFULL:.*]] = tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK-NEXT:  %[[AEMPTY:.*]] = tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK:       %[[BFULL:.*]] = tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK-NEXT:  %[[BEMPTY:.*]] = tirx.alloc : !tirx.buffer<2xi64, shared>
// CHECK:       %[[BOTH:.*]] = arith.constant 8 : i32
// CHECK:       ptx.mbarrier_init "shared" [%{{.*}}], %[[BOTH]]
// CHECK:       ptx.mbarrier_init "shared" [%{{.*}}], %[[BOTH]]
// CHECK:       cuda.sync_cluster
// CHECK:       %[[ONE:.*]] = arith.constant 4 : i32
// CHECK:       ptx.mbarrier_init "shared" [%{{.*}}], %[[ONE]]
// CHECK:       scf.for %[[K:k]] =
// CHECK:         ptx.cp_async_bulk_tensor_g2s_multicast "2d"
// CHECK:         ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster"
// One wgmma group stays in flight: the wait retires the previous K step's group, whose stage
// (stage + 1 in a register, 0 before the first step) is the one released.
// CHECK:         ptx.wgmma_wait_group 1
// CHECK:         %[[PEND:.*]] = cuda.load %{{.*}}, %{{.*}} : !tirx.buffer<1xi32, local>, index -> i32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[NAMED:.*]] = arith.cmpi ne, %[[PEND]], %[[Z]] : i32
// CHECK-NEXT:    %[[ONE_I:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[PREV:.*]] = arith.subi %[[PEND]], %[[ONE_I]] : i32
// CHECK-NEXT:    %[[PS:.*]] = arith.index_cast %[[PREV]] : i32 to index
// CHECK-NEXT:    %[[E:.*]] = cuda.address %[[AEMPTY]], %[[PS]]
// CHECK:         cuda.sync_warp
// CHECK:         %[[TX:.*]] = cuda.thread_idx x : index
// CHECK:         %[[W:.*]] = arith.constant 32 : index
// CHECK:         %[[LANE:.*]] = arith.remui %[[TX]], %[[W]] : index
// CHECK:         %[[R0:.*]] = cuda.cluster_block_rank : index
// CHECK:         %[[ROW0:.*]] = arith.constant 3 : index
// CHECK:         arith.shrui %[[ROW0]], %[[R0]] : index
// CHECK:         arith.cmpi ne
// CHECK-NEXT:    %[[L0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    arith.cmpi eq, %[[LANE]], %[[L0]] : index
// CHECK-NEXT:    arith.andi
// CHECK-NEXT:    arith.andi %{{.*}}, %[[NAMED]] : i1
// CHECK-NEXT:    scf.if
// CHECK:           %[[P0:.*]] = arith.constant 0 : i32
// CHECK:           %[[M0:.*]] = ptx.mapa "u32" %[[E]], %[[P0]]
// CHECK:           ptx.mbarrier_arrive "shared::cluster" [%[[M0]]]
// CHECK:         arith.constant 3 : index
// CHECK:           %[[P1:.*]] = arith.constant 1 : i32
// CHECK:           ptx.mapa "u32" %[[E]], %[[P1]]
// CHECK:         %[[ROW1:.*]] = arith.constant 12 : index
// CHECK:           %[[P2:.*]] = arith.constant 2 : i32
// CHECK:           ptx.mapa "u32" %[[E]], %[[P2]]
// CHECK:         arith.constant 12 : index
// CHECK:           %[[P3:.*]] = arith.constant 3 : i32
// CHECK:           ptx.mapa "u32" %[[E]], %[[P3]]
// CHECK:         cuda.store %{{.*}}, %{{.*}}, %{{.*}} : !tirx.buffer<1xi32, local>, index, i32
// CHECK:         %[[BPEND:.*]] = cuda.load %{{.*}}, %{{.*}} : !tirx.buffer<1xi32, local>, index -> i32
// CHECK:         %[[BNAMED:.*]] = arith.cmpi ne, %[[BPEND]]
// CHECK:         %[[BE:.*]] = cuda.address %[[BEMPTY]], %{{.*}}
// CHECK:         cuda.sync_warp
// CHECK:         arith.cmpi eq
// CHECK-NEXT:    arith.andi %{{.*}}, %[[BNAMED]] : i1
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      ptx.mbarrier_arrive "shared" [%[[BE]]]
// After the loop, the consumers wait for the last group and release its stages (the drain).
// CHECK:       } {cuda.split_roles}
// CHECK:       scf.if
// CHECK-NEXT:    ptx.wgmma_wait_group 0
// CHECK:         ptx.mapa
// CHECK:         ptx.mbarrier_arrive "shared::cluster"
// CHECK:         ptx.mbarrier_arrive "shared" [
// CHECK:       }{cuda.role = "drain"}
// CHECK:       cuda.sync_cluster
// CHECK-NEXT:  tirx.return
