// ARGS: --print-ir-after-al
// EXPECT-CLI-ERROR: unrecognized arguments
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
