// EXPECT-ERROR: computes in floating point
tirx.kernel @k(%A: !tirx.buffer<128x64xi32, global>) grid [1] threads [1] {
  tirx.exp %A, %A : !tirx.buffer<128x64xi32, global>, !tirx.buffer<128x64xi32, global>
  tirx.return
}
