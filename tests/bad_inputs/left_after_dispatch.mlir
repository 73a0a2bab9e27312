// EXPECT-ERROR: is left after tile dispatch
builtin.module attributes {tirx.dispatched} {
  tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
    tirx.zero %A : !tirx.buffer<128x64xf32, global>
    tirx.return
  }
}
