// EXPECT-ERROR: needs 2 offsets
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %v = tirx.slice %A[0] [64] : !tirx.buffer<128x64xf32, global> -> !tirx.buffer<64xf32, global>
  tirx.return
}
