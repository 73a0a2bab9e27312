// ARGS: -p trn-allocate
// EXPECT-ERROR: tirx.copy is a tile primitive, but trn-allocate works on nki instructions: run trn-default-layout and tirx-dispatch before trn-allocate
tirx.kernel @k(%X: !tirx.buffer<128x64xf32, global>) -> (%Y: !tirx.buffer<128x64xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
  tirx.copy %Y, %x : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.return
}
