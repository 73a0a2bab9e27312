// RMSNorm in f16 with f32 statistics on sm_80: Y = X / sqrt(mean(X^2) + 1e-6) * gamma, per row.
// 32 CTAs of 128 threads, one 8-row tile each: the f16 rows are widened to f32 by the copy into
// shared memory, binary_reduce squares and sums each row (the square into its own f32 tile, the
// sum by a warp butterfly), sqrt applies 1/N and the epsilon, binary_chain multiplies by the row
// factor and by the broadcast weight row gamma [1, 512], the last copy rounds back to f16.
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/rmsnorm.mlir -t cuda
tirx.kernel @rmsnorm(%X: !tirx.buffer<256x512xf16, global>, %gamma: !tirx.buffer<1x512xf16, global>)
    -> (%Y: !tirx.buffer<256x512xf16, global>) grid [32] threads [128] target "cuda -arch=sm_80" {
  %cta = tirx.cta_id x : index
  %c8 = arith.constant 8 : index
  %row = arith.muli %cta, %c8 : index
  %inv_n = arith.constant 0.001953125 : f32
  %eps = arith.constant 1.0e-06 : f32
  %xg = tirx.slice %X[%row, 0] [8, 512] : !tirx.buffer<256x512xf16, global> -> !tirx.buffer<8x512xf16, global>
  %yg = tirx.slice %Y[%row, 0] [8, 512] : !tirx.buffer<256x512xf16, global> -> !tirx.buffer<8x512xf16, global>
  %x = tirx.alloc : !tirx.buffer<8x512xf32, shared>
  %sq = tirx.alloc : !tirx.buffer<8x512xf32, shared>
  %ss = tirx.alloc : !tirx.buffer<8x1xf32, shared>
  %g = tirx.alloc : !tirx.buffer<1x512xf32, shared>
  tirx.copy cta %x, %xg : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf16, global>
  tirx.copy cta %g, %gamma : !tirx.buffer<1x512xf32, shared>, !tirx.buffer<1x512xf16, global>
  tirx.binary_reduce cta %sq, %ss, %x, %x binary mul reduce sum : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, shared>
  tirx.sqrt cta %ss, %ss bias %eps scale %inv_n : !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x1xf32, shared>, f32, f32
  tirx.reciprocal cta %ss, %ss : !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x1xf32, shared>
  tirx.binary_chain cta %x, %x, %ss, %g op0 mul op1 mul : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x1xf32, shared>, !tirx.buffer<1x512xf32, shared>
  tirx.copy cta %yg, %x : !tirx.buffer<8x512xf16, global>, !tirx.buffer<8x512xf32, shared>
  tirx.return
}
