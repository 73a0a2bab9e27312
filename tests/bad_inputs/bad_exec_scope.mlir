// EXPECT-ERROR: tirx.zero expects 1 operands
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero block %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
