// C[M, N] = A @ B with M = 1024, N = 2048, K = 4096: bf16 inputs, f32 accumulation and output.
// A arrives transposed (A^T: [K, M]) so K lands on partitions. The kernel walks C in 128 x 512
// blocks; per block it loads the K x 128 panel of A^T and the K x 512 panel of B (K split into 32
// partition tiles by the default layout), and one gemm accumulates the 32 K steps in PSUM.
//
//   tirx-run examples/trn/matmul_bf16_1024x2048x4096.mlir
tirx.kernel @matmul_bf16(%AT: !tirx.buffer<4096x1024xbf16, global>, %B: !tirx.buffer<4096x2048xbf16, global>)
    -> (%C: !tirx.buffer<1024x2048xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.for %mb = %c0 to %c8 step %c1 {
    %m0 = arith.muli %mb, %c128 : index
    %at = tirx.alloc : !tirx.buffer<4096x128xbf16, trn.sbuf>
    %at_hbm = tirx.slice %AT[0, %m0] [4096, 128] : !tirx.buffer<4096x1024xbf16, global> -> !tirx.buffer<4096x128xbf16, global>
    tirx.copy %at, %at_hbm : !tirx.buffer<4096x128xbf16, trn.sbuf>, !tirx.buffer<4096x128xbf16, global>
    scf.for %nb = %c0 to %c4 step %c1 {
      %n0 = arith.muli %nb, %c512 : index
      %b = tirx.alloc : !tirx.buffer<4096x512xbf16, trn.sbuf>
      %c = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
      %b_hbm = tirx.slice %B[0, %n0] [4096, 512] : !tirx.buffer<4096x2048xbf16, global> -> !tirx.buffer<4096x512xbf16, global>
      tirx.copy %b, %b_hbm : !tirx.buffer<4096x512xbf16, trn.sbuf>, !tirx.buffer<4096x512xbf16, global>
      tirx.gemm %c, %at, %b transpose_a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<4096x128xbf16, trn.sbuf>, !tirx.buffer<4096x512xbf16, trn.sbuf>
      %c_hbm = tirx.slice %C[%m0, %n0] [128, 512] : !tirx.buffer<1024x2048xf32, global> -> !tirx.buffer<128x512xf32, global>
      tirx.copy %c_hbm, %c : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
    }
  }
  tirx.return
}
