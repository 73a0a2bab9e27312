// relu(A @ B + bias) for A [256, 256] (given transposed, A^T = [K, M], so K lands on partitions),
// B [256, 512] and a bias row [1, 512] added to every row, written the natural way: the bias is
// loaded as a [1, 512] row and added to the [256, 512] result. Dispatch broadcasts it across
// partitions once (a ones-vector matmul: the row is on chip) and adds it to both row tiles;
// relu is a maximum with 0.
//
//   tirx-run examples/trn/matmul_bias_relu.mlir
tirx.kernel @matmul_bias_relu(%AT: !tirx.buffer<256x256xf32, global>, %B: !tirx.buffer<256x512xf32, global>, %Bias: !tirx.buffer<1x512xf32, global>)
    -> (%C: !tirx.buffer<256x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %at = tirx.alloc : !tirx.buffer<256x256xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %bias = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  tirx.copy %at, %AT : !tirx.buffer<256x256xf32, trn.sbuf>, !tirx.buffer<256x256xf32, global>
  tirx.copy %b, %B : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x512xf32, global>
  tirx.copy %bias, %Bias : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.gemm %c, %at, %b transpose_a : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x256xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>
  tirx.add %c, %c, %bias : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  %zero = arith.constant 0.0 : f32
  tirx.maximum %c, %c, %zero : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>, f32
  tirx.copy %C, %c : !tirx.buffer<256x512xf32, global>, !tirx.buffer<256x512xf32, trn.sbuf>
  tirx.return
}
