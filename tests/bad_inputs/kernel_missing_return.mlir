// EXPECT-ERROR: terminates block
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
}
