// EXPECT-ERROR: before operand 'rhs'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.add %A, %A : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, global>
  tirx.return
}
