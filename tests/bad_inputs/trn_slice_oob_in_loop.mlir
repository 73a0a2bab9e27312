// ARGS: --pass-pipeline=trn -t nki
// EXPECT-ERROR: dim 0: elements [1024, 1151] are out of bounds for extent 1024 (when %i = 7, cta_id x = 1)
tirx.kernel @k(%A: !tirx.buffer<1024x128xf32, global>) -> (%C: !tirx.buffer<1024x128xf32, global>) grid [2] threads [1] target "aws/trn1/trn1.2xlarge" {
  %cta = tirx.cta_id x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %base = arith.muli %cta, %c128 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %off = arith.muli %i, %c128 : index
    %row = arith.addi %off, %base : index
    %a = tirx.slice %A[%row, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
    %s = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
    tirx.copy %s, %a : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
    %o = tirx.slice %C[0, 0] [128, 128] : !tirx.buffer<1024x128xf32, global> -> !tirx.buffer<128x128xf32, global>
    tirx.copy %o, %s : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  }
  tirx.return
}
