// ARGS: --pass-pipeline=trn
// EXPECT-ERROR: 'tirx.binary_chain' op tile dispatch failed: op=tirx.binary_chain: it decomposes as tirx.binary_chain (variant 'decompose') into tirx.mul, which cannot be dispatched:
tirx.kernel @chain(%X: !tirx.buffer<128x128xf32, global>) -> (%Y: !tirx.buffer<128x128xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %t = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  %y = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %k = arith.constant 2.0 : f32
  tirx.copy %x, %X : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  tirx.copy %t, %X : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, global>
  tirx.binary_chain %y, %t, %x, %k op0 mul op1 add : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, trn.sbuf>, f32
  tirx.copy %Y, %y : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
