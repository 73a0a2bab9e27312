// EXPECT-ERROR: closing string literal
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] target "aws/trn1/trn1.2xlarge {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
