// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// copy_async tma_auto with one cta_mask per rank: the rows of a 2x2 cluster (rank x + 2y: masks
// 0b0011, 0b0011, 0b1100, 0b1100) share their 64x64 f16 tile. Its one 64-row box is cut into two
// 32-row slices (the tensor map's box is 32x64): member 0 of each row (ranks 0 and 2: the bit
// set 0b0101) issues the first, member 1 (0b1010) the second, 2048 elements on; each to its
// row's mask, picked by the rank (0b0011 where the rank is in 0b0011, else 0b1100). Every CTA
// arms its own full barrier with the whole tile's 8192 bytes.

tirx.kernel @rows(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {
  %by = tirx.cta_id y : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %by, %c64 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x64xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = array<i64: 3, 3, 12, 12>} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @rows
// CHECK-SAME:    box = array<i64: 32, 64>, swizzle = "128B"
// CHECK:       cuda.sync_cluster
// CHECK:       scf.if
// CHECK:         %[[BAR:.*]] = cuda.address
// CHECK:         %[[BYTES:.*]] = arith.constant 8192 : i32
// CHECK:         ptx.mbarrier_arrive_expect_tx "shared" [%[[BAR]]], %[[BYTES]]
// CHECK:         %[[R0:.*]] = cuda.cluster_block_rank : index
// CHECK:         %[[MEMBER0:.*]] = arith.constant 5 : index
// CHECK:         %[[S0:.*]] = arith.shrui %[[MEMBER0]], %[[R0]] : index
// CHECK:         scf.if
// CHECK:           %[[ROW1:.*]] = arith.constant 12 : i16
// CHECK:           %[[R1:.*]] = cuda.cluster_block_rank : index
// CHECK:           %[[ROW0BITS:.*]] = arith.constant 3 : index
// CHECK:           arith.shrui %[[ROW0BITS]], %[[R1]] : index
// CHECK:           %[[IN0:.*]] = arith.cmpi ne
// CHECK:           %[[ROW0:.*]] = arith.constant 3 : i16
// CHECK:           %[[MASK:.*]] = arith.select %[[IN0]], %[[ROW0]], %[[ROW1]] : i16
// CHECK:           ptx.cp_async_bulk_tensor_g2s_multicast "2d" [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}}], [%[[BAR]]], %[[MASK]]
// CHECK:         %[[MEMBER1:.*]] = arith.constant 10 : index
// CHECK:         scf.if
// CHECK:           arith.constant 2048 : index
// CHECK:           ptx.cp_async_bulk_tensor_g2s_multicast "2d"
// CHECK-NOT:   ptx.cp_async_bulk_tensor_g2s
// CHECK:       scf.while
// CHECK:         ptx.mbarrier_try_wait_parity "shared"
