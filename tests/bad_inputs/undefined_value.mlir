// EXPECT-ERROR: %nope
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero %nope : !tirx.buffer<128x64xf32, global>
  tirx.return
}
