// EXPECT-ERROR: slice result type must be
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %v = tirx.slice %A[0, 0] [64, 64] : !tirx.buffer<128x64xf32, global> -> !tirx.buffer<64x64xf32, shared>
  tirx.return
}
