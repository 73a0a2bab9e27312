// ARGS: -p tirx-dispatch
// EXPECT-ERROR: has no Trainium layout: run trn-default-layout before tirx-dispatch
tirx.kernel @k(%X: !tirx.buffer<256x64xf32, global>) -> (%Y: !tirx.buffer<256x64xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x64xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<256x64xf32, trn.sbuf>, !tirx.buffer<256x64xf32, global>
  tirx.copy %Y, %x : !tirx.buffer<256x64xf32, global>, !tirx.buffer<256x64xf32, trn.sbuf>
  tirx.return
}
