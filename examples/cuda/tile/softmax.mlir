// Row softmax of a 512x256 f32 matrix on sm_80: Y = exp(X - max(X)) / sum(exp(X - max(X))), per row.
// 16 CTAs of 128 threads, one 32-row tile each in shared memory (32 KiB), cta-scope ops:
// reduce_negate gives -max (each warp reduces rows with a shfl.sync butterfly), unary_reduce
// computes exp(x - max) and its row sum, then the reciprocal scales every row.
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/softmax.mlir -t cuda
tirx.kernel @softmax(%X: !tirx.buffer<512x256xf32, global>)
    -> (%Y: !tirx.buffer<512x256xf32, global>) grid [16] threads [128] target "cuda -arch=sm_80" {
  %cta = tirx.cta_id x : index
  %c32 = arith.constant 32 : index
  %row = arith.muli %cta, %c32 : index
  %x = tirx.slice %X[%row, 0] [32, 256] : !tirx.buffer<512x256xf32, global> -> !tirx.buffer<32x256xf32, global>
  %y = tirx.slice %Y[%row, 0] [32, 256] : !tirx.buffer<512x256xf32, global> -> !tirx.buffer<32x256xf32, global>
  %t = tirx.alloc : !tirx.buffer<32x256xf32, shared>
  %negmax = tirx.alloc : !tirx.buffer<32x1xf32, shared>
  %sum = tirx.alloc : !tirx.buffer<32x1xf32, shared>
  tirx.copy cta %t, %x : !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x256xf32, global>
  tirx.reduce_negate cta %negmax, %t reduce max : !tirx.buffer<32x1xf32, shared>, !tirx.buffer<32x256xf32, shared>
  tirx.unary_reduce cta %t, %sum, %t bias %negmax unary exp reduce sum : !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x1xf32, shared>, !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x1xf32, shared>
  tirx.reciprocal cta %sum, %sum : !tirx.buffer<32x1xf32, shared>, !tirx.buffer<32x1xf32, shared>
  tirx.mul cta %t, %t, %sum : !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x1xf32, shared>
  tirx.copy cta %y, %t : !tirx.buffer<32x256xf32, global>, !tirx.buffer<32x256xf32, shared>
  tirx.return
}
