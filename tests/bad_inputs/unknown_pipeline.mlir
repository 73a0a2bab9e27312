// ARGS: --pass-pipeline=cleanupp
// EXPECT-CLI-ERROR: did you mean 'cleanup'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
