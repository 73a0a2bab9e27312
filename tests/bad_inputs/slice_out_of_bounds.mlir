// EXPECT-ERROR: out of bounds
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %v = tirx.slice %A[64, 0] [128, 64] : !tirx.buffer<128x64xf32, global> -> !tirx.buffer<128x64xf32, global>
  tirx.return
}
