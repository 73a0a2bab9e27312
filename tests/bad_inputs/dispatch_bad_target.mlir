// ARGS: -p tirx-dispatch
// EXPECT-ERROR: unknown target kind or tag 'nosuchkind'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] target "nosuchkind -arch=x" {
  tirx.zero %A : !tirx.buffer<128x64xf32, global>
  tirx.return
}
