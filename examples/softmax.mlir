// Row softmax of a 512x256 f32 matrix: Y = exp(X - max(X)) / sum(exp(X - max(X))), per row.
// Four CTAs of 128 threads, one 128-row tile each, all in shared memory with cta-scope ops:
// reduce_negate gives -max, unary_reduce computes exp(x - max) and its row sum in one pass.
//
//   tirx-run examples/softmax.mlir
tirx.kernel @softmax(%X: !tirx.buffer<512x256xf32, global>)
    -> (%Y: !tirx.buffer<512x256xf32, global>) grid [4] threads [128] {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %x = tirx.slice %X[%row, 0] [128, 256] : !tirx.buffer<512x256xf32, global> -> !tirx.buffer<128x256xf32, global>
  %y = tirx.slice %Y[%row, 0] [128, 256] : !tirx.buffer<512x256xf32, global> -> !tirx.buffer<128x256xf32, global>
  %t = tirx.alloc : !tirx.buffer<128x256xf32, shared>
  %negmax = tirx.alloc : !tirx.buffer<128x1xf32, shared>
  %sum = tirx.alloc : !tirx.buffer<128x1xf32, shared>
  tirx.copy cta %t, %x : !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x256xf32, global>
  tirx.reduce_negate cta %negmax, %t reduce max : !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x256xf32, shared>
  tirx.unary_reduce cta %t, %sum, %t bias %negmax unary exp reduce sum : !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x1xf32, shared>
  tirx.reciprocal cta %sum, %sum : !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x1xf32, shared>
  tirx.mul cta %t, %t, %sum : !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x1xf32, shared>
  tirx.copy cta %y, %t : !tirx.buffer<128x256xf32, global>, !tirx.buffer<128x256xf32, shared>
  tirx.return
}
