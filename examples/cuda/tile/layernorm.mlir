// LayerNorm of a 256x512 f32 matrix with affine weights on sm_80:
// Y = (X - mean(X)) / sqrt(var(X) + 1e-5) * gamma + beta, per row.
// 32 CTAs of 128 threads, one 8-row tile each in shared memory: sum gives each row's sum (a
// warp butterfly), mul by -1/N its negated mean, add centres the rows (broadcasting the [8, 1]
// column), binary_reduce squares and sums them, sqrt applies 1/N and the epsilon, binary_chain
// multiplies by the row factor and by the broadcast gamma row, add the broadcast beta row.
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/layernorm.mlir -t cuda
tirx.kernel @layernorm(%X: !tirx.buffer<256x512xf32, global>, %gamma: !tirx.buffer<1x512xf32, global>, %beta: !tirx.buffer<1x512xf32, global>)
    -> (%Y: !tirx.buffer<256x512xf32, global>) grid [32] threads [128] target "cuda -arch=sm_80" {
  %cta = tirx.cta_id x : index
  %c8 = arith.constant 8 : index
  %row = arith.muli %cta, %c8 : index
  %neg_inv_n = arith.constant -0.001953125 : f32
  %inv_n = arith.constant 0.001953125 : f32
  %eps = arith.constant 1.0e-05 : f32
  %xg = tirx.slice %X[%row, 0] [8, 512] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<8x512xf32, global>
  %yg = tirx.slice %Y[%row, 0] [8, 512] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<8x512xf32, global>
  %x = tirx.alloc : !tirx.buffer<8x512xf32, shared>
  %sq = tirx.alloc : !tirx.buffer<8x512xf32, shared>
  %mean = tirx.alloc : !tirx.buffer<8x1xf32, shared>
  %ss = tirx.alloc : !tirx.buffer<8x1xf32, shared>
  %g = tirx.alloc : !tirx.buffer<1x512xf32, shared>
  %b = tirx.alloc : !tirx.buffer<1x512xf32, shared>
  tirx.copy cta %x, %xg : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, global>
  tirx.copy cta %g, %gamma : !tirx.buffer<1x512xf32, shared>, !tirx.buffer<1x512xf32, global>
  tirx.copy cta %b, %beta : !tirx.buffer<1x512xf32, shared>, !tirx.buffer<1x512xf32, global>
  tirx.sum cta %mean, %x axes [-1] : !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x512xf32, shared>
  tirx.mul cta %mean, %mean, %neg_inv_n : !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x1xf32, shared>, f32
  tirx.add cta %x, %x, %mean : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x1xf32, shared>
  tirx.binary_reduce cta %sq, %ss, %x, %x binary mul reduce sum : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, shared>
  tirx.sqrt cta %ss, %ss bias %eps scale %inv_n : !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x1xf32, shared>, f32, f32
  tirx.reciprocal cta %ss, %ss : !tirx.buffer<8x1xf32, shared>, !tirx.buffer<8x1xf32, shared>
  tirx.binary_chain cta %x, %x, %ss, %g op0 mul op1 mul : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x1xf32, shared>, !tirx.buffer<1x512xf32, shared>
  tirx.add cta %x, %x, %b : !tirx.buffer<8x512xf32, shared>, !tirx.buffer<8x512xf32, shared>, !tirx.buffer<1x512xf32, shared>
  tirx.copy cta %yg, %x : !tirx.buffer<8x512xf32, global>, !tirx.buffer<8x512xf32, shared>
  tirx.return
}
