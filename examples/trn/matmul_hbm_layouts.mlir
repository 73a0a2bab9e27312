// C = A @ B for a 128x256 A and a 256x128 B, where A lies in HBM row-major as usual: declared
// as the logical [K, M] tensor A^T with a column-major layout, the contraction dim K lands on
// the partitions when it is loaded, with no transpose. C is written with rows 160 elements apart
// after 16 elements of padding (a slice of a wider, padded HBM array). The arguments are
// logical tensors; the layouts say how they lie in HBM (docs/trn.md, HBM layouts), and the
// printed kernel takes AT and C as flat arrays of the layouts' spans.
//
//   tirx-run examples/trn/matmul_hbm_layouts.mlir
tirx.kernel @matmul_hbm_layouts(%AT: !tirx.buffer<256x128xf32, global, S[(256,128):(1,256)]>, %B: !tirx.buffer<256x128xf32, global>)
    -> (%C: !tirx.buffer<128x128xf32, global, S[(128,128):(160,1)] + 16>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %at = tirx.alloc : !tirx.buffer<256x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<256x128xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %at, %AT : !tirx.buffer<256x128xf32, trn.sbuf>, !tirx.buffer<256x128xf32, global, S[(256,128):(1,256)]>
  tirx.copy %b, %B : !tirx.buffer<256x128xf32, trn.sbuf>, !tirx.buffer<256x128xf32, global>
  tirx.gemm %c, %at, %b transpose_a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<256x128xf32, trn.sbuf>, !tirx.buffer<256x128xf32, trn.sbuf>
  tirx.copy %C, %c : !tirx.buffer<128x128xf32, global, S[(128,128):(160,1)] + 16>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
