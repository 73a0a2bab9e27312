// EXPECT-ERROR: redefines symbol @k, first defined at duplicate_symbol.mlir:2:1
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.return
}
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.return
}
