// EXPECT-ERROR: SSA value %x is already defined
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.return
}
