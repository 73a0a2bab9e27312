// ARGS: -p tirx-dispatch{nope=1}
// EXPECT-CLI-ERROR: invalid options for pass 'tirx-dispatch'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
