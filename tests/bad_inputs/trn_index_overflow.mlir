// ARGS: --pass-pipeline=trn -t nki
// EXPECT-ERROR: 'arith.muli' op [index-overflow] the result overflows index: it reaches 18446744073709551616
tirx.kernel @k(%A: !tirx.buffer<1024x128xf32, global>) -> (%C: !tirx.buffer<1024x128xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %big = arith.constant 4611686018427387904 : index
  %four = arith.constant 4 : index
  %d = arith.muli %big, %four : index
  %a = tirx.slice %A[%d, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %s = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %s, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  %o = tirx.slice %C[0, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy %o, %s : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
