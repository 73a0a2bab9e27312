// ARGS: --pass-pipeline=cleanup{level=3}
// EXPECT-CLI-ERROR: pipeline 'cleanup' has no option 'level'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
