// Row softmax of a ragged [1000, 1000] f32 matrix: 1000 rows are 7 partition tiles of 128 and a
// last one of 104. The default layout tiles the rows that way (S[(8,128,1000):(1000@F,1@P,1@F)],
// covering 1024 rows of which the last 24 are never addressed); dispatch cuts every tile op
// into its 896 regular rows (a loop over full tiles) and the 104 remaining ones, so each step
// issues one instruction per row tile and column chunk, the last one smaller, as a hand-written
// NKI kernel does. Columns go 500 at a time (two equal chunks of at most 512).
//
//   tirx-run examples/trn/softmax_1000x1000.mlir
tirx.kernel @softmax_1000x1000(%X: !tirx.buffer<1000x1000xf32, global>) -> (%Y: !tirx.buffer<1000x1000xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<1000x1000xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<1000x1xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<1000x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<1000x1000xf32, trn.sbuf>, !tirx.buffer<1000x1000xf32, global>
  tirx.reduce_negate %m, %x reduce max : !tirx.buffer<1000x1xf32, trn.sbuf>, !tirx.buffer<1000x1000xf32, trn.sbuf>
  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : !tirx.buffer<1000x1000xf32, trn.sbuf>, !tirx.buffer<1000x1xf32, trn.sbuf>, !tirx.buffer<1000x1000xf32, trn.sbuf>, !tirx.buffer<1000x1xf32, trn.sbuf>
  tirx.reciprocal %s, %s : !tirx.buffer<1000x1xf32, trn.sbuf>, !tirx.buffer<1000x1xf32, trn.sbuf>
  tirx.mul %x, %x, %s : !tirx.buffer<1000x1000xf32, trn.sbuf>, !tirx.buffer<1000x1000xf32, trn.sbuf>, !tirx.buffer<1000x1xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<1000x1000xf32, global>, !tirx.buffer<1000x1000xf32, trn.sbuf>
  tirx.return
}
