// EXPECT-ERROR: operand is used with type !tirx.buffer<64x128xf32, global>
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.copy %x, %A : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<64x128xf32, global>
  tirx.return
}
