// ARGS: --pass-pipeline=trn -t nki
// EXPECT-ERROR: 'tirx.slice' op [out-of-bounds] dim 0: elements [1000, 1127] are out of bounds for extent 1024
tirx.kernel @k(%A: !tirx.buffer<1024x128xf32, global>) -> (%C: !tirx.buffer<1024x128xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c = arith.constant 1000 : index
  %a = tirx.slice %A[%c, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %s = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %s, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  %o = tirx.slice %C[0, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy %o, %s : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
