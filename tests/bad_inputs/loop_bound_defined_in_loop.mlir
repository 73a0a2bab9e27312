// EXPECT-ERROR: (%n) is used before it is defined
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %n = arith.constant 4 : index
  }
  tirx.return
}
