// Row softmax of a [1000, 512] f32 matrix, one 128-row tile per iteration of a loop of 8: the
// last tile holds 1000 - 7 * 128 = 104 rows. Each iteration guards its views with
// %rows = min(128, 1000 - i * 128) (TIRx's guarded tile ops): `tirx.slice %X[%row, 0] [%rows,
// 512]` views %rows rows, at most 128 (its result type), and every op on a guarded view touches
// only those rows. The SBUF tiles are sized by the maximum; tirx-check-bounds proves that
// %row + %rows - 1 <= 999 from the ranges of %i and of the min.
//
//   tirx-run examples/trn/guarded_loop.mlir
//   tirx-opt --pass-pipeline=trn examples/trn/guarded_loop.mlir -t nki
tirx.kernel @guarded_loop(%X: !tirx.buffer<1000x512xf32, global>) -> (%Y: !tirx.buffer<1000x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %z = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %rows = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%rows, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%rows, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %xs = tirx.slice %x[0, 0] [%rows, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    %ms = tirx.slice %m[0, 0] [%rows, 1] : !tirx.buffer<128x1xf32, trn.sbuf> -> !tirx.buffer<128x1xf32, trn.sbuf>
    %zs = tirx.slice %z[0, 0] [%rows, 1] : !tirx.buffer<128x1xf32, trn.sbuf> -> !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.copy %xs, %src : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.reduce_negate %ms, %xs reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.unary_reduce %xs, %zs, %xs bias %ms unary exp reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.reciprocal %zs, %zs : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.mul %xs, %xs, %zs : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.copy %dst, %xs : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}
