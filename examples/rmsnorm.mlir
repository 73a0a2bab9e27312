// RMSNorm in bf16 with f32 statistics: Y = X / sqrt(mean(X^2) + 1e-6) * gamma, per row.
// Two CTAs of 128 threads, one 128-row tile each. The bf16 tile is widened to f32 by the copy
// into shared memory; binary_reduce squares and sums each row in one pass; sqrt applies the
// 1/N scale and the epsilon bias; binary_chain multiplies by the row factor and by gamma; the
// last copy rounds back to bf16.
//
//   tirx-run examples/rmsnorm.mlir
tirx.kernel @rmsnorm(%X: !tirx.buffer<256x512xbf16, global>, %gamma: !tirx.buffer<1x512xbf16, global>)
    -> (%Y: !tirx.buffer<256x512xbf16, global>) grid [2] threads [128] {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %inv_n = arith.constant 0.001953125 : f32
  %eps = arith.constant 1.0e-06 : f32
  %xg = tirx.slice %X[%row, 0] [128, 512] : !tirx.buffer<256x512xbf16, global> -> !tirx.buffer<128x512xbf16, global>
  %yg = tirx.slice %Y[%row, 0] [128, 512] : !tirx.buffer<256x512xbf16, global> -> !tirx.buffer<128x512xbf16, global>
  %x = tirx.alloc : !tirx.buffer<128x512xf32, shared>
  %sq = tirx.alloc : !tirx.buffer<128x512xf32, shared>
  %ss = tirx.alloc : !tirx.buffer<128x1xf32, shared>
  %g = tirx.alloc : !tirx.buffer<1x512xf32, shared>
  tirx.copy cta %x, %xg : !tirx.buffer<128x512xf32, shared>, !tirx.buffer<128x512xbf16, global>
  tirx.copy cta %g, %gamma : !tirx.buffer<1x512xf32, shared>, !tirx.buffer<1x512xbf16, global>
  tirx.binary_reduce cta %sq, %ss, %x, %x binary mul reduce sum : !tirx.buffer<128x512xf32, shared>, !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x512xf32, shared>, !tirx.buffer<128x512xf32, shared>
  tirx.sqrt cta %ss, %ss bias %eps scale %inv_n : !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x1xf32, shared>, f32, f32
  tirx.reciprocal cta %ss, %ss : !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x1xf32, shared>
  tirx.binary_chain cta %x, %x, %ss, %g op0 mul op1 mul : !tirx.buffer<128x512xf32, shared>, !tirx.buffer<128x512xf32, shared>, !tirx.buffer<128x1xf32, shared>, !tirx.buffer<1x512xf32, shared>
  tirx.copy cta %yg, %x : !tirx.buffer<128x512xbf16, global>, !tirx.buffer<128x512xf32, shared>
  tirx.return
}
