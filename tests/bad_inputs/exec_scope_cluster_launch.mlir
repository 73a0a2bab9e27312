// EXPECT-ERROR: needs a cluster launch
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero cluster %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
