// C = A @ B^T on sm_90a with TMA, mbarriers and wgmma, split into one producer warpgroup and
// two consumer warpgroups (the warp-specialized "cooperative" shape of Hopper GEMMs). A is
// 256x256 f16 (M x K), B is 256x256 f16 (N x K: gemm_async's K-major B), C is 256x256 f32. A
// 2x2 grid of CTAs of 384 threads (3 warpgroups) computes one 128x128 tile of C each, walking K
// in 4 steps of 64 through a ring of 3 stage tiles per operand.
//
// How the split is written: it is not. The tile-level program is sequential and CTA-collective
// (the tile interpreter runs it once per CTA, every copy_async and gemm_async complete in program
// order), and names no thread, role or barrier. The cuda lowering derives the split from it:
// * default layouts: the ring tiles %sa/%sb get the 128-byte swizzle their TMA and wgmma uses
//   need (64 f16 columns = one 128-byte row: layout/swizzle.py), %acc the wgmma accumulator
//   layout of the consumer warpgroups (warpgroup c holds rows 64c..64c+63 in 64 registers per
//   thread; layout/fragments_wgmma.py);
// * copy_async (forced to tma_auto) is issued by thread 256, the first of the last warpgroup
//   (the producer): it waits until the stage is empty, arms the stage's "full" mbarrier with
//   the tile's 16384 bytes (expect_tx) and issues the TMA box; the tensor map is a kernel
//   parameter the host builds (cuda.host_tensor_maps; -t cuda prints it __grid_constant__);
// * gemm_async (wgmma) runs on warpgroups 0 and 1 (the consumers): each waits until the stage is
//   full, issues 4 wgmma m64n128k16 (its m64 tile x 4 K steps of 16) between wgmma.fence and
//   commit, waits with wait_group 1 (one group stays in flight: the previous K step's is
//   retired) and arrives on the previous step's stage's "empty" mbarrier; after the loop,
//   wait_group 0 and the last stage's arrival (dispatch/wgmma_in_flight.py; the consumers and
//   the producer each get their own K loop: transforms/split_roles.py);
// * the epilogue stores C from the registers (tests/examples/test_cuda_tile_gemm_sm90a.py also
//   runs it staged through a swizzled shared tile and stored with the TMA, which costs the
//   consumers registers for the shared addresses);
// so the producer runs up to 3 stages ahead. The barriers, their phases (one bit per stage and
// role in a register) and the roles are dispatch/tma_ring.py's. Any program order of TMA
// copies into stage views ring[s] and gemm_async reads of them lowers this way.
//
//   tirx-run examples/cuda/tile/gemm_sm90a.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/gemm_sm90a.mlir -t cuda
tirx.kernel @gemm_sm90a(%A: !tirx.buffer<256x256xf16, global>, %B: !tirx.buffer<256x256xf16, global>)
    -> (%C: !tirx.buffer<256x256xf32, global>) grid [2, 2] threads [384] target "cuda -arch=sm_90a" {
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
    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.copy_async cta %sbs, %b dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  }
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
