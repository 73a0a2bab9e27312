// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch | filecheck %s
// copy_async tma_auto with a cta_mask computed at run time (the copy's cta_mask operand; here
// each row of a 2x2 cluster, 3 << 2y): the issuing thread takes the mask's 16 bits, the
// group's size (popcount) and this CTA's member index (the members below its rank), and issues
// box i when i % size == member, multicast with the mask.

tirx.kernel @runtime(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<4x64x128xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %y2 = arith.muli %by, %c2 : index
  %r = arith.addi %y2, %bx : index
  %m = arith.shli %c3, %y2 : index
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %a = tirx.slice %A[%c64, %c64] [64, 128] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy_async cta %s, %a cta_mask %m dispatch "tma_auto" : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>, index
  %o3 = tirx.slice %O[%r, 0, 0] [1, 64, 128] : !tirx.buffer<4x64x128xf16, global> -> !tirx.buffer<1x64x128xf16, global>
  %o = tirx.reshape %o3 : !tirx.buffer<1x64x128xf16, global> -> !tirx.buffer<64x128xf16, global>
  tirx.copy cta %o, %s : !tirx.buffer<64x128xf16, global>, !tirx.buffer<64x128xf16, shared>
  tirx.return
}

// CHECK:      cuda.sync_cluster
// CHECK:      %[[M16:.*]] = arith.index_cast %m : index to i16
// CHECK-NEXT: %[[M32:.*]] = arith.extui %[[M16]] : i16 to i32
// CHECK-NEXT: %[[BITS:.*]] = arith.index_cast %[[M32]] : i32 to index
// CHECK:      %[[RANK:.*]] = cuda.cluster_block_rank : index
// CHECK-NEXT: %[[ABOVE:.*]] = arith.shrui %[[BITS]], %[[RANK]] : index
// CHECK:      %[[MEMBER:.*]] = arith.subi %[[SIZE:.*]], %{{.*}} : index
// CHECK:      %[[WHICH0:.*]] = arith.remui %{{.*}}, %[[SIZE]] : index
// CHECK-NEXT: %[[MINE0:.*]] = arith.cmpi eq, %[[WHICH0]], %[[MEMBER]] : index
// CHECK-NEXT: scf.if %[[MINE0]] {
// CHECK:        ptx.cp_async_bulk_tensor_g2s_multicast "2d" {{.*}}, %[[M16]] :
// CHECK:      %[[WHICH1:.*]] = arith.remui %{{.*}}, %[[SIZE]] : index
// CHECK-NEXT: %[[MINE1:.*]] = arith.cmpi eq, %[[WHICH1]], %[[MEMBER]] : index
// CHECK-NEXT: scf.if %[[MINE1]] {
// CHECK:        ptx.cp_async_bulk_tensor_g2s_multicast "2d" {{.*}}, %[[M16]] :
