// EXPECT-ERROR: parameters live in 'global' memory
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, trn.sbuf>) grid [1] threads [1] {
  tirx.return
}
