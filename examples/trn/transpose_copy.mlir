// A transposing copy: X [128, 96] arrives with rows on partitions; the tile op copies it into a
// buffer whose layout holds the same logical [128, 96] matrix transposed (dim 1 on partitions,
// S[(128,96):(1@F,1@P)]), i.e. a partition-dim mismatch. Dispatch turns it into a TensorE
// transpose: nki.matmul(out, x, I) writes x^T to PSUM, then tensor_copy to SBUF. Storing the
// transposed buffer with rows as its logical dim gives back X; storing the transpose view of its
// physical tile (Y = X^T) shows the data really moved.
//
//   tirx-run examples/trn/transpose_copy.mlir
tirx.kernel @transpose_copy(%X: !tirx.buffer<128x96xf32, global>)
    -> (%Y: !tirx.buffer<96x128xf32, global>, %Z: !tirx.buffer<128x96xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x96xf32, trn.sbuf>
  %xt = tirx.alloc : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]>
  tirx.copy %x, %X : !tirx.buffer<128x96xf32, trn.sbuf>, !tirx.buffer<128x96xf32, global>
  tirx.copy %xt, %x : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]>, !tirx.buffer<128x96xf32, trn.sbuf>
  %t = tirx.transpose %xt [1, 0] : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]> -> !tirx.buffer<96x128xf32, trn.sbuf>
  tirx.copy %Y, %t : !tirx.buffer<96x128xf32, global>, !tirx.buffer<96x128xf32, trn.sbuf>
  tirx.copy %Z, %xt : !tirx.buffer<128x96xf32, global>, !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]>
  tirx.return
}
