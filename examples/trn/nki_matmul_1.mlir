// TIRx's codegen test nki_matmul_1 at tile level: result[4096, 2048] (f16) = lhsT^T @ rhs with
// lhsT [K=1024, M=4096] and rhs [1024, 2048] in f16, blocked as in the test: N in 4 blocks of 512,
// M in 2 blocks of 2048 (16 tiles of 128), K in one block of 1024 (8 tiles of 128). An SBUF f32
// accumulator holds a [4096, 512] column block; each gemm adds its product to it (beta = 1), and
// the block is converted to f16 on its way out.
//
//   tirx-run examples/trn/nki_matmul_1.mlir
tirx.kernel @nki_matmul_1(%lhsT: !tirx.buffer<1024x4096xf16, global>, %rhs: !tirx.buffer<1024x2048xf16, global>)
    -> (%result: !tirx.buffer<4096x2048xf16, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %c2048 = arith.constant 2048 : index
  %acc = tirx.alloc : !tirx.buffer<4096x512xf32, trn.sbuf>
  %rhs_tiles = tirx.alloc : !tirx.buffer<1024x512xf16, trn.sbuf>
  %lhsT_tiles = tirx.alloc : !tirx.buffer<1024x2048xf16, trn.sbuf>
  scf.for %n = %c0 to %c4 step %c1 {
    %n0 = arith.muli %n, %c512 : index
    tirx.zero %acc : !tirx.buffer<4096x512xf32, trn.sbuf>
    %rhs_blk = tirx.slice %rhs[0, %n0] [1024, 512] : !tirx.buffer<1024x2048xf16, global> -> !tirx.buffer<1024x512xf16, global>
    tirx.copy %rhs_tiles, %rhs_blk : !tirx.buffer<1024x512xf16, trn.sbuf>, !tirx.buffer<1024x512xf16, global>
    scf.for %m = %c0 to %c2 step %c1 {
      %m0 = arith.muli %m, %c2048 : index
      %lhs_blk = tirx.slice %lhsT[0, %m0] [1024, 2048] : !tirx.buffer<1024x4096xf16, global> -> !tirx.buffer<1024x2048xf16, global>
      tirx.copy %lhsT_tiles, %lhs_blk : !tirx.buffer<1024x2048xf16, trn.sbuf>, !tirx.buffer<1024x2048xf16, global>
      %acc_blk = tirx.slice %acc[%m0, 0] [2048, 512] : !tirx.buffer<4096x512xf32, trn.sbuf> -> !tirx.buffer<2048x512xf32, trn.sbuf>
      tirx.gemm %acc_blk, %lhsT_tiles, %rhs_tiles transpose_a beta 1.0 : !tirx.buffer<2048x512xf32, trn.sbuf>, !tirx.buffer<1024x2048xf16, trn.sbuf>, !tirx.buffer<1024x512xf16, trn.sbuf>
    }
    %out = tirx.slice %result[0, %n0] [4096, 512] : !tirx.buffer<4096x2048xf16, global> -> !tirx.buffer<4096x512xf16, global>
    tirx.copy %out, %acc : !tirx.buffer<4096x512xf16, global>, !tirx.buffer<4096x512xf32, trn.sbuf>
  }
  tirx.return
}
