// EXPECT-ERROR: reduction axis 3 is out of range
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %r = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.sum %r, %A axes [3] : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
  tirx.return
}
