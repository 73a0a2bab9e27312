// C = relu(A @ B + bias) on sm_80 tensor cores: A 256x512 f16, B 512x256 f16, a bias row
// [1, 256] f32 added to every row of C 256x256 f32. The main loop is examples/cuda/tile/
// gemm_sm80.mlir's (2x2 CTAs, one 128x128 tile each, K steps of 32 through XOR-swizzled shared
// tiles, ldmatrix + mma.sync into a register accumulator); the epilogue works on the register
// tile: the CTA's 128 bias values are staged in shared memory and added to every row of the
// fragments (a broadcast read), relu is a maximum with 0, then the tile is stored.
//
//   tirx-run examples/cuda/tile/matmul_bias_relu.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/matmul_bias_relu.mlir -t cuda
tirx.kernel @matmul_bias_relu(%A: !tirx.buffer<256x512xf16, global>, %B: !tirx.buffer<512x256xf16, global>, %Bias: !tirx.buffer<1x256xf32, global>)
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
  %bg = tirx.slice %Bias[0, %n0] [1, 128] : !tirx.buffer<1x256xf32, global> -> !tirx.buffer<1x128xf32, global>
  %bias = tirx.alloc : !tirx.buffer<1x128xf32, shared>
  tirx.copy cta %bias, %bg : !tirx.buffer<1x128xf32, shared>, !tirx.buffer<1x128xf32, global>
  tirx.add cta %acc, %acc, %bias : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x128xf32, local>, !tirx.buffer<1x128xf32, shared>
  %zero = arith.constant 0.0 : f32
  tirx.maximum cta %acc, %acc, %zero : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x128xf32, local>, f32
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
