// ARGS: --pass-pipeline=trn -t nki
// EXPECT-ERROR: 'tirx.slice' op [out-of-bounds] dim 0: elements [1024, 1151] are out of bounds for extent 1024 (when cta_id x = 8)
tirx.kernel @k(%A: !tirx.buffer<1024x128xf32, global>) -> (%C: !tirx.buffer<1024x128xf32, global>) grid [9] threads [1] target "aws/trn1/trn1.2xlarge" {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %a = tirx.slice %A[%row, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %s = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %s, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  %o = tirx.slice %C[0, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy %o, %s : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}
