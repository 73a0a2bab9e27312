// EXPECT-ERROR: unknown memory scope 'smem'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %s = tirx.alloc : !tirx.buffer<32x32xf32, smem>
  tirx.return
}
