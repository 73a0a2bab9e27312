// C = A @ B^T on sm_90a with a 2x2 cluster sharing both operands, as CUTLASS and Triton do:
// the CTAs of a cluster row share their A tile, those of a column their B tile. A is 256x256
// f16 (M x K), B 256x256 f16 (N x K), C 256x256 f32; the grid is one 2x2 cluster, CTA (x, y)
// computes C[128y.., 128x..], walking K in 4 steps of 64 through rings of 3 stage tiles, as
// examples/cuda/tile/gemm_sm90a.mlir does.
//
// The tile level is the same program as without multicast (every CTA's copy fills its own
// tile); the configs ask tma_auto to load A once per cluster row and B once per column. A
// CTA's rank is x + 2y, so the row of rank r is the mask 0b0011 (ranks 0, 1) or 0b1100 (2, 3):
// cta_mask = array<i64: 3, 3, 12, 12>, one mask per rank; the columns are 0b0101 and 0b1010.
// dispatch/tma_multicast.py checks that A's offsets (k0 and 128 * cta_id y) are the same
// along a row and B's (k0 and 128 * cta_id x) along a column, and that each CTA is in its own
// mask. The two CTAs of a group share a tile's one 128x64 box: each issues a 64-row slice of
// it (cp.async.bulk.tensor.2d...multicast::cluster, its mask picked by its rank), which lands
// in both; each CTA's producer arms its own full mbarrier with the whole tile's 16384 bytes.
// A stage of A is empty when the consumers of the row are done with it: each consumer thread
// arrives on empty[s] of both CTAs of its row (mapa + mbarrier.arrive.release.cluster, the
// peers predicated on the rank; 256 arrivals per phase), those of B on both CTAs of its
// column. The K loop has no cluster barrier.
//
//   tirx-run examples/cuda/tile/gemm_multicast_2x2_sm90a.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/gemm_multicast_2x2_sm90a.mlir -t ptx
tirx.kernel @gemm_multicast_2x2_sm90a(%A: !tirx.buffer<256x256xf16, global>, %B: !tirx.buffer<256x256xf16, global>)
    -> (%C: !tirx.buffer<256x256xf32, global>) grid [2, 2] threads [256] cluster [2, 2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %sa = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c3 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%m0, %k0] [128, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %b = tirx.slice %B[%n0, %k0] [128, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" config {cta_mask = array<i64: 3, 3, 12, 12>} : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "tma_auto" config {cta_mask = array<i64: 5, 10, 5, 10>} : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  }
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
