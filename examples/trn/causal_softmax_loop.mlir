// Causal softmax of a [512, 512] f32 score matrix, one 128-row query tile per iteration of a
// loop (an scf.for the printers keep as a loop, not unrolled). The causal mask of tile %i reads
// the loop variable: key k is kept where k <= i * 128 + q, i.e. the select predicate
// (d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0) with s0 bound to %i (`symbols [%i]`). Dispatch adds
// the symbols' part (128 * i) to the nki.affine_select offset; the masked scores are -3.0e38
// (NKI's fp32 minimum), so exp makes them 0.
//
//   tirx-run examples/trn/causal_softmax_loop.mlir
//   tirx-opt --pass-pipeline=trn examples/trn/causal_softmax_loop.mlir -t nki
tirx.kernel @causal_softmax_loop(%S: !tirx.buffer<512x512xf32, global>) -> (%P: !tirx.buffer<512x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %s = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %z = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %neg = arith.constant -3.0e38 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %row = arith.muli %i, %c128 : index
    %src = tirx.slice %S[%row, 0] [128, 512] : !tirx.buffer<512x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %dst = tirx.slice %P[%row, 0] [128, 512] : !tirx.buffer<512x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    tirx.copy %s, %src : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.select %s, %s, %neg where (d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0) symbols [%i] : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32, index
    tirx.reduce_negate %m, %s reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.unary_reduce %s, %z, %s bias %m unary exp reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.reciprocal %z, %z : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.mul %s, %s, %z : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.copy %dst, %s : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}
