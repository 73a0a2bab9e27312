// EXPECT-ERROR: needs a multiple of 32 threads
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [48] {
  tirx.zero warp %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
