// ARGS: --pass-pipeline=trn -t nki
// EXPECT-ERROR: 'arith.remui' op [div-by-zero] the divisor is zero (when cta_id x = 3)
tirx.kernel @k(%A: !tirx.buffer<1024x128xf32, global>) -> (%C: !tirx.buffer<1024x128xf32, global>) grid [8] threads [1] target "aws/trn1/trn1.2xlarge" {
  %cta = tirx.cta_id x : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %den = arith.subi %cta, %c3 : index
  %d = arith.remui %c128, %den : index
  %a = tirx.slice %A[%d, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %s = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %s, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  %o = tirx.slice %C[0, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy %o, %s : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
