// Causal mask of a [128, 512] f32 score tile for a query block at row offset 384 of a 512-long
// sequence: keep S[q, k] where key k <= query 384 + q, else -inf ... written -3.0e38 here (the
// fp32 minimum NKI masks use). tirx.select with an affine predicate over the tile's indices
// (d0 = q, d1 = k): 384 + d0 - d1 >= 0. Dispatch emits nki.affine_select (GpSimd).
//
//   tirx-run examples/trn/causal_mask.mlir
tirx.kernel @causal_mask(%S: !tirx.buffer<128x512xf32, global>) -> (%M: !tirx.buffer<128x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %s = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %s, %S : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  %neg = arith.constant -3.0e38 : f32
  tirx.select %m, %s, %neg where (d0, d1) : (d0 - d1 + 384 >= 0) : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.copy %M, %m : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
