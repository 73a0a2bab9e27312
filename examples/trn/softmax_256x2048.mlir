// Row softmax of a [256, 2048] f32 matrix held in one SBUF buffer with the split-partition
// layout S[(2,128,2048):(2048@F,1@P,1@F)] (rows r and r + 128 share a partition). Every tile op
// runs on the whole logical buffer; dispatch splits the rows into the two partition tiles and
// the 2048 columns into instructions (elementwise: 512 free elements each; reductions: whole
// rows).
//
//   tirx-run examples/trn/softmax_256x2048.mlir
tirx.kernel @softmax_256x2048(%X: !tirx.buffer<256x2048xf32, global>) -> (%Y: !tirx.buffer<256x2048xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
  %m = tirx.alloc : !tirx.buffer<256x1xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>, !tirx.buffer<256x2048xf32, global>
  tirx.reduce_negate %m, %x reduce max : !tirx.buffer<256x1xf32, trn.sbuf>, !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>, !tirx.buffer<256x1xf32, trn.sbuf>, !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>, !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.reciprocal %s, %s : !tirx.buffer<256x1xf32, trn.sbuf>, !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.mul %x, %x, %s : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>, !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>, !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<256x2048xf32, global>, !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
  tirx.return
}
