// EXPECT-ERROR: merges dims 1 and 2, which do not lie in memory as one run
// ARGS: --pass-pipeline=trn
tirx.kernel @k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.sbuf>
  %t = tirx.transpose %x [0, 2, 1] : !tirx.buffer<128x4x512xf32, trn.sbuf> -> !tirx.buffer<128x512x4xf32, trn.sbuf>
  %m = tirx.reshape %t : !tirx.buffer<128x512x4xf32, trn.sbuf> -> !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.zero %m : !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.return
}
