// EXPECT-ERROR: may contain only tile primitives
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.compose_op {
    %c = arith.constant 1.0 : f32
  }
  tirx.return
}
