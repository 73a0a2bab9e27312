// EXPECT-ERROR: 'd0 * d1' is not affine
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.select %A, %A, %A where (d0, d1) : (d0 * d1 >= 0) : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, global>
  tirx.return
}
