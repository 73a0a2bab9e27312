// C = A @ B^T on sm_90a, the 128x256x64 tile of cuBLAS-class Hopper GEMMs: one producer
// warpgroup and two consumer warpgroups (CUTLASS's "cooperative" kernel). A is 256x256 f16
// (M x K), B is 512x256 f16 (N x K: gemm_async's K-major B), C is 256x512 f32. A 2x2 grid of
// CTAs of 384 threads computes one 128x256 tile of C each, walking K in 4 steps of 64 through a
// ring of 3 stage tiles per operand (48 KiB of A and 96 KiB of B).
//
// The lowering is gemm_sm90a's (that file says how the split is derived from this sequential,
// CTA-collective program): the TMA copies go to the producer, each consumer warpgroup issues
// 4 wgmma m64n256k16 per K step (its 64 rows of the tile: 128 accumulator registers per
// thread) keeping one group in flight, and the loop is split by role. Its registers are not
// re-balanced (cuda-set-max-nreg): ptxas allocates a wgmma within the kernel's registers at
// launch, and 128 accumulators need more than the 80 two CTAs per SM would leave, so one CTA
// per SM either way.
//
//   tirx-run examples/cuda/tile/gemm_128x256_sm90a.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/gemm_128x256_sm90a.mlir -t cuda
tirx.kernel @gemm_128x256_sm90a(%A: !tirx.buffer<256x256xf16, global>, %B: !tirx.buffer<512x256xf16, global>)
    -> (%C: !tirx.buffer<256x512xf32, global>) grid [2, 2] threads [384] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c256 : index
  %sa = tirx.alloc : !tirx.buffer<3x128x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<3x256x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<128x256xf32, local>
  tirx.zero cta %acc : !tirx.buffer<128x256xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c3 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%m0, %k0] [128, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %b = tirx.slice %B[%n0, %k0] [256, 64] : !tirx.buffer<512x256xf16, global> -> !tirx.buffer<256x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 256, 64] : !tirx.buffer<3x256x64xf16, shared> -> !tirx.buffer<1x256x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x256x64xf16, shared> -> !tirx.buffer<256x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "tma_auto" : !tirx.buffer<256x64xf16, shared>, !tirx.buffer<256x64xf16, global>
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<128x256xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<256x64xf16, shared>
  }
  %c = tirx.slice %C[%m0, %n0] [128, 256] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<128x256xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x256xf32, global>, !tirx.buffer<128x256xf32, local>
  tirx.return
}
