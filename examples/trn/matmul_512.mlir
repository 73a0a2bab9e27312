// C = A @ B for 512x512x512 f32 with everything resident in SBUF. A^T [K, M] and B [K, N] get
// the default layout for 512 rows, S[(4,128,512):(512@F,1@P,1@F)]: K is split into 4 partition
// tiles. gemm tiles M by 128 (C's partition tile), N by 512 and K by 128: the K loop accumulates
// in one PSUM bank (accumulate_if k > 0), then one tensor_copy per C tile.
//
//   tirx-run examples/trn/matmul_512.mlir
tirx.kernel @matmul_512(%AT: !tirx.buffer<512x512xf32, global>, %B: !tirx.buffer<512x512xf32, global>)
    -> (%C: !tirx.buffer<512x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %at = tirx.alloc : !tirx.buffer<512x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<512x512xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<512x512xf32, trn.sbuf>
  tirx.copy %at, %AT : !tirx.buffer<512x512xf32, trn.sbuf>, !tirx.buffer<512x512xf32, global>
  tirx.copy %b, %B : !tirx.buffer<512x512xf32, trn.sbuf>, !tirx.buffer<512x512xf32, global>
  tirx.gemm %c, %at, %b transpose_a : !tirx.buffer<512x512xf32, trn.sbuf>, !tirx.buffer<512x512xf32, trn.sbuf>, !tirx.buffer<512x512xf32, trn.sbuf>
  tirx.copy %C, %c : !tirx.buffer<512x512xf32, global>, !tirx.buffer<512x512xf32, trn.sbuf>
  tirx.return
}
