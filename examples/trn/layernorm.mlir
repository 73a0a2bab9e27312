// LayerNorm of a [128, 512] f32 tile with affine weights (gamma, beta: [512], shared by rows):
//   y = (x - mean) / sqrt(var + eps) * gamma + beta.
// mean via a row sum; x - mean as x + (-mean) (tensor_scalar); var via binary_reduce of the
// centred squares; rstd = 1 / sqrt(ss / 512 + eps); gamma and beta broadcast across partitions
// on TensorE (ones^T @ w, K = 1); the affine part is a binary_chain and an add.
//
//   tirx-run examples/trn/layernorm.mlir
tirx.kernel @layernorm(%X: !tirx.buffer<128x512xf32, global>, %Gamma: !tirx.buffer<1x512xf32, global>,
                       %Beta: !tirx.buffer<1x512xf32, global>)
    -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %sq = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %mean = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %ss = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %w = tirx.alloc : !tirx.buffer<1x1024xf32, trn.sbuf>
  %ones = tirx.alloc : !tirx.buffer<1x128xf32, trn.sbuf>
  %wb = tirx.alloc : !tirx.buffer<128x1024xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  %wg = tirx.slice %w[0, 0] [1, 512] : !tirx.buffer<1x1024xf32, trn.sbuf> -> !tirx.buffer<1x512xf32, trn.sbuf>
  %wbeta = tirx.slice %w[0, 512] [1, 512] : !tirx.buffer<1x1024xf32, trn.sbuf> -> !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.copy %wg, %Gamma : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.copy %wbeta, %Beta : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  %one = arith.constant 1.0 : f32
  tirx.fill %ones, %one : !tirx.buffer<1x128xf32, trn.sbuf>, f32
  tirx.gemm %wb, %ones, %w transpose_a : !tirx.buffer<128x1024xf32, trn.sbuf>, !tirx.buffer<1x128xf32, trn.sbuf>, !tirx.buffer<1x1024xf32, trn.sbuf>
  tirx.sum %mean, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  %neg_inv_d = arith.constant -0.001953125 : f32
  tirx.mul %mean, %mean, %neg_inv_d : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
  tirx.add %x, %x, %mean : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.binary_reduce %sq, %ss, %x, %x binary mul reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  %eps = arith.constant 1.0e-5 : f32
  %inv_d = arith.constant 0.001953125 : f32
  tirx.sqrt %ss, %ss bias %eps scale %inv_d : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32, f32
  tirx.reciprocal %ss, %ss : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  %gb = tirx.slice %wb[0, 0] [128, 512] : !tirx.buffer<128x1024xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
  %bb = tirx.slice %wb[0, 512] [128, 512] : !tirx.buffer<128x1024xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.binary_chain %x, %x, %ss, %gb op0 mul op1 mul : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.add %x, %x, %bb : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
