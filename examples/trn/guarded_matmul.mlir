// Y = X @ W for X [1000, 256], W [256, 512], written as the loop a user writes: 8 row tiles of
// 128, the last of 1000 - 7 * 128 = 104 rows, each guarded by %rows = min(128, 1000 - i * 128).
// X's tile holds M on partitions, so dispatch transposes it on TensorE (an identity matmul over
// its guarded rows) to put K on partitions; the gemm then accumulates the two K tiles of 128 in a
// PSUM tile guarded like Y's rows and evicts it: per row tile, 2 transposes + 2 matmuls, each one
// guarded instruction (nl.ds on the rows in -t nki, mask= in -t nki-legacy), as a hand-written
// NKI kernel does.
//
//   tirx-run examples/trn/guarded_matmul.mlir
//   tirx-opt --pass-pipeline=trn examples/trn/guarded_matmul.mlir -t nki
tirx.kernel @guarded_matmul(%X: !tirx.buffer<1000x256xf32, global>, %W: !tirx.buffer<256x512xf32, global>)
    -> (%Y: !tirx.buffer<1000x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %w = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %x = tirx.alloc : !tirx.buffer<128x256xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %w, %W : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x512xf32, global>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %rows = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%rows, 256] : !tirx.buffer<1000x256xf32, global> -> !tirx.buffer<128x256xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%rows, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %xs = tirx.slice %x[0, 0] [%rows, 256] : !tirx.buffer<128x256xf32, trn.sbuf> -> !tirx.buffer<128x256xf32, trn.sbuf>
    %ys = tirx.slice %y[0, 0] [%rows, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.copy %xs, %src : !tirx.buffer<128x256xf32, trn.sbuf>, !tirx.buffer<128x256xf32, global>
    tirx.gemm %ys, %xs, %w : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x256xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>
    tirx.copy %dst, %ys : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}
