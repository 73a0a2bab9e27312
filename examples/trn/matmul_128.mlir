// C = A @ B for 128x128x128 f32. A is given transposed (lhsT = A^T, [K, M]) so that the
// contraction dim K lands on partitions when it is loaded (TensorE contracts over partitions);
// B is [K, N]. One nki.matmul into a PSUM tile, then a tensor_copy to SBUF and a store.
//
//   tirx-run examples/trn/matmul_128.mlir
tirx.kernel @matmul_128(%AT: !tirx.buffer<128x128xf32, global>, %B: !tirx.buffer<128x128xf32, global>)
    -> (%C: !tirx.buffer<128x128xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %at = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %at, %AT : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  tirx.copy %b, %B : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  tirx.gemm %c, %at, %b transpose_a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %C, %c : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
