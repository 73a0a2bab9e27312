// EXPECT-ERROR: does not broadcast to the destination
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %b = tirx.alloc : !tirx.buffer<64x1xf32, trn.sbuf>
  tirx.mul %A, %A, %b : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, global>, !tirx.buffer<64x1xf32, trn.sbuf>
  tirx.return
}
