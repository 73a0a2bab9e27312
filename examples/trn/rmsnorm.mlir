// RMSNorm of a [128, 512] f32 tile (the NKI tutorial's kernel, with an epsilon):
//   y = x / sqrt(mean(x^2) + eps) * g,   g: [512] weights shared by every row.
// mean(x^2): binary_reduce (x * x, row sum); rstd: sqrt(sum * (1/512) + eps) then reciprocal;
// g is broadcast to all 128 partitions on TensorE (ones[1, 128]^T @ g[1, 512], K = 1);
// y = (x * rstd) * g_b is one binary_chain (nki.scalar_tensor_tensor).
//
//   tirx-run examples/trn/rmsnorm.mlir
tirx.kernel @rmsnorm(%X: !tirx.buffer<128x512xf32, global>, %G: !tirx.buffer<1x512xf32, global>)
    -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %sq = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %ss = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %g = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %ones = tirx.alloc : !tirx.buffer<1x128xf32, trn.sbuf>
  %gb = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.copy %g, %G : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  %one = arith.constant 1.0 : f32
  tirx.fill %ones, %one : !tirx.buffer<1x128xf32, trn.sbuf>, f32
  tirx.gemm %gb, %ones, %g transpose_a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x128xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.binary_reduce %sq, %ss, %x, %x binary mul reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  %eps = arith.constant 1.0e-6 : f32
  %inv_d = arith.constant 0.001953125 : f32
  tirx.sqrt %ss, %ss bias %eps scale %inv_d : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32, f32
  tirx.reciprocal %ss, %ss : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.binary_chain %x, %x, %ss, %gb op0 mul op1 mul : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
