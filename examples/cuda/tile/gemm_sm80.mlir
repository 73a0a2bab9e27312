// C = A @ B on sm_80 tensor cores: A 256x512 f16, B 512x256 f16, C 256x256 f32.
// A 2x2 grid of CTAs (4 warps each) computes one 128x128 tile of C per CTA; the K loop steps by
// 32, staging a 128x32 tile of A and a 32x128 tile of B in shared memory and accumulating into
// a 128x128 register tile with gemm's beta = 1.
//
// The shared tiles are XOR-swizzled on 16-byte chunks so that every ldmatrix phase (8 rows of
// 16 bytes) hits 8 distinct bank groups: A's 64-byte rows swap chunk c with c ^ ((row / 2) % 4)
// (swizzle(3,2,3)), B's 256-byte rows chunk c with c ^ (row % 8) (swizzle(3,3,4)).
// The cuda pipeline gives the accumulator the m16n8 fragment layout over a 2x2 warp grid
// (64x64 per warp) and lowers the gemm to ldmatrix (A) / ldmatrix.trans (B) + mma.sync.m16n8k16;
// cuda-pipeline-k-loop then turns the K loop's copies into a 3-stage cp.async ring (48 KiB of
// shared memory; 16-byte cp.async.cg, 8 per thread and K step). ptxas -v for sm_80: 201
// registers, no spills.
//
//   tirx-run examples/cuda/tile/gemm_sm80.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/gemm_sm80.mlir \
//     | tirx-opt -p 'cuda-pipeline-k-loop{num_stages=3}' -t ptx
tirx.kernel @gemm_sm80(%A: !tirx.buffer<256x512xf16, global>, %B: !tirx.buffer<512x256xf16, global>)
    -> (%C: !tirx.buffer<256x256xf32, global>) grid [2, 2] threads [128]
    target "cuda -arch=sm_80" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  %sa = tirx.alloc : !tirx.buffer<128x32xf16, shared, swizzle(3,2,3) S[128,32]>
  %sb = tirx.alloc : !tirx.buffer<32x128xf16, shared, swizzle(3,3,4) S[32,128]>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c512 step %c32 {
    %a = tirx.slice %A[%m0, %k] [128, 32] : !tirx.buffer<256x512xf16, global> -> !tirx.buffer<128x32xf16, global>
    %b = tirx.slice %B[%k, %n0] [32, 128] : !tirx.buffer<512x256xf16, global> -> !tirx.buffer<32x128xf16, global>
    tirx.copy cta %sa, %a : !tirx.buffer<128x32xf16, shared, swizzle(3,2,3) S[128,32]>, !tirx.buffer<128x32xf16, global>
    tirx.copy cta %sb, %b : !tirx.buffer<32x128xf16, shared, swizzle(3,3,4) S[32,128]>, !tirx.buffer<32x128xf16, global>
    tirx.gemm cta %acc, %sa, %sb beta 1.0 : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x32xf16, shared, swizzle(3,2,3) S[128,32]>, !tirx.buffer<32x128xf16, shared, swizzle(3,3,4) S[32,128]>
  }
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
