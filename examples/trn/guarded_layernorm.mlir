// LayerNorm of X [1000, 512] with gamma, beta [1, 512], written as the loop a user writes: 8
// row tiles of 128, the last of 1000 - 7 * 128 = 104 rows, every view guarded by
// %rows = min(128, 1000 - i * 128). gamma and beta are put on every partition once, before the
// loop (tirx.copy of a [1, 512] row into a [128, 512] tile: a ones-row matmul on TensorE), and
// each tile reads their guarded rows. Per tile: a row sum, the centring (tensor_scalar), the
// centred squares' sum (tensor_scalar_reduce), rstd = 1 / sqrt(ss / 512 + eps), the affine part
// (binary_chain: x * rstd * gamma, then + beta), each one guarded instruction.
//
//   tirx-run examples/trn/guarded_layernorm.mlir
//   tirx-opt --pass-pipeline=trn examples/trn/guarded_layernorm.mlir -t nki
tirx.kernel @guarded_layernorm(%X: !tirx.buffer<1000x512xf32, global>, %Gamma: !tirx.buffer<1x512xf32, global>, %Beta: !tirx.buffer<1x512xf32, global>)
    -> (%Y: !tirx.buffer<1000x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %g = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %gb = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %bb = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %g, %Gamma : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.copy %b, %Beta : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.copy %gb, %g : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.copy %bb, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %sq = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %mean = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %ss = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %neg_inv_d = arith.constant -0.001953125 : f32
  %eps = arith.constant 1.0e-5 : f32
  %inv_d = arith.constant 0.001953125 : f32
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
    %sqs = tirx.slice %sq[0, 0] [%rows, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    %gs = tirx.slice %gb[0, 0] [%rows, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    %bs = tirx.slice %bb[0, 0] [%rows, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    %ms = tirx.slice %mean[0, 0] [%rows, 1] : !tirx.buffer<128x1xf32, trn.sbuf> -> !tirx.buffer<128x1xf32, trn.sbuf>
    %vs = tirx.slice %ss[0, 0] [%rows, 1] : !tirx.buffer<128x1xf32, trn.sbuf> -> !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.copy %xs, %src : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.sum %ms, %xs : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.mul %ms, %ms, %neg_inv_d : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
    tirx.add %xs, %xs, %ms : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.binary_reduce %sqs, %vs, %xs, %xs binary mul reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.sqrt %vs, %vs bias %eps scale %inv_d : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32, f32
    tirx.reciprocal %vs, %vs : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.binary_chain %xs, %xs, %vs, %gs op0 mul op1 mul : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.add %xs, %xs, %bs : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.copy %dst, %xs : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}
