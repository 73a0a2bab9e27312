// Causal attention probabilities: P[h] = softmax(mask(S[h])) for 4 heads of 64x64 scores, where
// the mask keeps key j <= query i and writes -1e30 above the diagonal (exp gives 0 there).
// One CTA of 128 threads per head; select evaluates its affine predicate over the tile's
// (row, column) indices.
//
//   tirx-run examples/causal_softmax.mlir
tirx.kernel @causal_softmax(%S: !tirx.buffer<4x64x64xf32, global>)
    -> (%P: !tirx.buffer<4x64x64xf32, global>) grid [4] threads [128] {
  %h = tirx.cta_id x : index
  %neg = arith.constant -1.0e+30 : f32
  %s = tirx.slice %S[%h, 0, 0] [1, 64, 64] : !tirx.buffer<4x64x64xf32, global> -> !tirx.buffer<1x64x64xf32, global>
  %p = tirx.slice %P[%h, 0, 0] [1, 64, 64] : !tirx.buffer<4x64x64xf32, global> -> !tirx.buffer<1x64x64xf32, global>
  %t = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %negmax = tirx.alloc : !tirx.buffer<64x1xf32, shared>
  %sum = tirx.alloc : !tirx.buffer<64x1xf32, shared>
  tirx.copy cta %t, %s : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<1x64x64xf32, global>
  tirx.select cta %t, %t, %neg where (d0, d1) : (d0 - d1 >= 0) : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>, f32
  tirx.reduce_negate cta %negmax, %t reduce max : !tirx.buffer<64x1xf32, shared>, !tirx.buffer<64x64xf32, shared>
  tirx.unary_reduce cta %t, %sum, %t bias %negmax unary exp reduce sum : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x1xf32, shared>, !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x1xf32, shared>
  tirx.fdiv cta %t, %t, %sum : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x1xf32, shared>
  tirx.copy cta %p, %t : !tirx.buffer<1x64x64xf32, global>, !tirx.buffer<64x64xf32, shared>
  tirx.return
}
