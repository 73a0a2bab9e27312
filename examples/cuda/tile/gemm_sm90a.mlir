// C = A @ B^T on sm_90a with TMA, mbarriers and wgmma, a producer warpgroup and a consumer
// warpgroup: A is 256x256 f16 (M x K), B is 256x256 f16 (N x K, K-major: gemm_async's B),
// C is 256x256 f32. A 2x2 grid of CTAs of 256 threads (2 warpgroups) computes one 128x128 tile
// of C each, walking K in 4 steps of 64 through a 3-stage ring of shared tiles.
//
// The tile-level program is sequential and collective (the tile interpreter runs it once per
// CTA, copy_async and gemm_async complete in program order). The CUDA lowering splits it by
// role, with no role or barrier written by the user:
// * the ring tiles %sa/%sb get the 128-byte swizzled layout their TMA and wgmma uses need
//   (default layouts: 64 f16 columns = one 128-byte row);
// * copy_async (variant tma_auto) is issued by one thread of the last warpgroup (the producer):
//   it waits until the stage is empty (an mbarrier per stage the variant allocates), arms the
//   stage's full mbarrier with the tile's bytes (expect_tx) and issues the TMA boxes; the
//   tensor map is a host-built kernel parameter (cuda.host_tensor_maps);
// * gemm_async (variant wgmma) runs on the other warpgroups (the consumers): they wait until
//   the stage is full, run wgmma m64n128k16 over K (fence, commit, wait 0) with the accumulator
//   %acc in their registers, then arrive on the stage's empty mbarrier.
// So the producer runs up to 3 stages ahead of the consumer.
//
//   tirx-run examples/cuda/tile/gemm_sm90a.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/gemm_sm90a.mlir -t cuda
tirx.kernel @gemm_sm90a(%A: !tirx.buffer<256x256xf16, global>, %B: !tirx.buffer<256x256xf16, global>)
    -> (%C: !tirx.buffer<256x256xf32, global>) grid [2, 2] threads [256] target "cuda -arch=sm_90a" {
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
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c3 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%m0, %k0] [128, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %b = tirx.slice %B[%n0, %k0] [128, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 128, 64] : !tirx.buffer<3x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      tirx.gemm_async cta %acc, %sas, %sbs : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
    } else {
      tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
    }
  }
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
