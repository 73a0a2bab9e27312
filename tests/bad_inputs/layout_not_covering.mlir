// EXPECT-ERROR: covers 65536 elements
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  tirx.return
}
