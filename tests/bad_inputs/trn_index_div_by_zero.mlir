// ARGS: --pass-pipeline=trn -t nki
// EXPECT-ERROR: 'arith.divsi' op [div-by-zero] the divisor is zero
tirx.kernel @k(%A: !tirx.buffer<1024x128xf32, global>) -> (%C: !tirx.buffer<1024x128xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c = arith.constant 128 : index
  %z = arith.constant 0 : index
  %d = arith.divsi %c, %z : index
  %a = tirx.slice %A[%d, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %s = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %s, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  %o = tirx.slice %C[0, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy %o, %s : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
