// LayerNorm of a [200, 512] f32 matrix with affine weights given as rows gamma, beta: [1, 512]
// (shared by every row): y = (x - mean) / sqrt(var + eps) * gamma + beta, written the natural
// way: the [1, 512] rows are loaded once and used with the [200, 512] tile directly. Each is
// broadcast across partitions once (a ones-vector matmul on TensorE: the row is on chip) and
// read by every row tile; the 200 rows are a full tile of 128 and a partial one of 72.
//
//   tirx-run examples/trn/layernorm_affine_rows.mlir
tirx.kernel @layernorm_affine_rows(%X: !tirx.buffer<200x512xf32, global>, %Gamma: !tirx.buffer<1x512xf32, global>, %Beta: !tirx.buffer<1x512xf32, global>)
    -> (%Y: !tirx.buffer<200x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<200x512xf32, trn.sbuf>
  %sq = tirx.alloc : !tirx.buffer<200x512xf32, trn.sbuf>
  %mean = tirx.alloc : !tirx.buffer<200x1xf32, trn.sbuf>
  %ss = tirx.alloc : !tirx.buffer<200x1xf32, trn.sbuf>
  %gamma = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %beta = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x512xf32, global>
  tirx.copy %gamma, %Gamma : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.copy %beta, %Beta : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.sum %mean, %x : !tirx.buffer<200x1xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>
  %neg_inv_d = arith.constant -0.001953125 : f32
  tirx.mul %mean, %mean, %neg_inv_d : !tirx.buffer<200x1xf32, trn.sbuf>, !tirx.buffer<200x1xf32, trn.sbuf>, f32
  tirx.add %x, %x, %mean : !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x1xf32, trn.sbuf>
  tirx.binary_reduce %sq, %ss, %x, %x binary mul reduce sum : !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x1xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>
  %eps = arith.constant 1.0e-5 : f32
  %inv_d = arith.constant 0.001953125 : f32
  tirx.sqrt %ss, %ss bias %eps scale %inv_d : !tirx.buffer<200x1xf32, trn.sbuf>, !tirx.buffer<200x1xf32, trn.sbuf>, f32, f32
  tirx.reciprocal %ss, %ss : !tirx.buffer<200x1xf32, trn.sbuf>, !tirx.buffer<200x1xf32, trn.sbuf>
  tirx.mul %x, %x, %ss : !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x1xf32, trn.sbuf>
  tirx.mul %x, %x, %gamma : !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.add %x, %x, %beta : !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<200x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<200x512xf32, global>, !tirx.buffer<200x512xf32, trn.sbuf>
  tirx.return
}
