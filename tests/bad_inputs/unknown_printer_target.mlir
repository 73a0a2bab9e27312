// ARGS: -t cudaa
// EXPECT-CLI-ERROR: unknown target 'cudaa'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
