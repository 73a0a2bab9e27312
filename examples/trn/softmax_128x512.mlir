// Row softmax of a [128, 512] f32 tile, in the TIRx style: -max with reduce_negate, then
// exp(x - max) and its row sum fused in one unary_reduce (nki.activation_reduce), 1/sum, scale.
//
//   tirx-run examples/trn/softmax_128x512.mlir
tirx.kernel @softmax(%X: !tirx.buffer<128x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x512xf32, global>
  tirx.reduce_negate %m, %x reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.reciprocal %s, %s : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.mul %x, %x, %s : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  tirx.return
}
