// C = A @ B for M = 128, N = 5120, K = 128 into SBUF: ten 512-column output tiles, each
// accumulated in PSUM and evicted before the next one reuses the bank. (TIRx 0.1.0a4 rotates 8
// PSUM banks without clearing them, so its tiles 9 and 10 accumulate onto stale results.)
//
//   tirx-run examples/trn/matmul_wide_n.mlir
tirx.kernel @matmul_wide_n(%AT: !tirx.buffer<128x128xf32, global>, %B: !tirx.buffer<128x5120xf32, global>)
    -> (%C: !tirx.buffer<128x5120xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %at = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x5120xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x5120xf32, trn.sbuf>
  tirx.copy %at, %AT : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  tirx.copy %b, %B : !tirx.buffer<128x5120xf32, trn.sbuf>, !tirx.buffer<128x5120xf32, global>
  tirx.gemm %c, %at, %b transpose_a : !tirx.buffer<128x5120xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x5120xf32, trn.sbuf>
  tirx.copy %C, %c : !tirx.buffer<128x5120xf32, global>, !tirx.buffer<128x5120xf32, trn.sbuf>
  tirx.return
}
