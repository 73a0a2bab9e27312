// C = A @ B^T on sm_90a where the two CTAs of a cluster share the B tile: B's TMA copies are
// multicast to the cluster (config {cta_mask = 3}) instead of each CTA loading the same box.
// A is 256x256 f16 (M x K), B 128x256 f16 (N x K), C 256x128 f32; the grid is 2 CTAs in one
// cluster, CTA r computes rows 128r..128r+127 of C, walking K in 4 steps of 64 through rings
// of 3 stage tiles, as examples/cuda/tile/gemm_sm90a.mlir does.
//
// The tile level is the same program as without multicast (every CTA's copy fills its own
// tile); the config asks tma_auto to issue each box of B once for the cluster, which is right
// because B's slice is the same in both CTAs (its offsets are the loop's k0 and 0, uniform
// over the cluster: dispatch/tma_multicast.py checks it). Both rings keep the producer/
// consumer split of gemm_sm90a.mlir. For B, each CTA's producer thread waits until the stage
// is empty, arms its own full mbarrier with the tile's 16384 bytes, and issues its 64-row
// slice of the one 128x64 box (rank 0 the first, rank 1 the second) with
// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// and mask 0b11: each slice lands in both CTAs at the same offset and completes on both full
// barriers. A stage of B is empty when the consumers of both CTAs are done with it: every
// consumer thread arrives on empty[s] of both CTAs (mapa + mbarrier.arrive.release.cluster
// .shared::cluster; 256 arrivals per phase), so the K loop has no cluster barrier (the
// barriers' initialisation and the kernel's end have one each).
//
//   tirx-run examples/cuda/tile/gemm_multicast_sm90a.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/gemm_multicast_sm90a.mlir -t ptx
tirx.kernel @gemm_multicast_sm90a(%A: !tirx.buffer<256x256xf16, global>, %B: !tirx.buffer<128x256xf16, global>)
    -> (%C: !tirx.buffer<256x128xf32, global>) grid [2] threads [256] cluster [2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m0 = arith.muli %bx, %c128 : index
  %n0 = arith.constant 0 : index
  %sa = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c3 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%m0, %k0] [128, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %b = tirx.slice %B[%n0, %k0] [128, 64] : !tirx.buffer<128x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "tma_auto" config {cta_mask = 3} : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  }
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
