// EXPECT-ERROR: operand #0 (%y) is used before it is defined
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %x = arith.addi %y, %y : index
  %y = arith.constant 1 : index
  tirx.return
}
