// ARGS: -t ptx
// EXPECT-ERROR: @k has an invalid target: unknown target kind or tag 'nosuch'
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) grid [1] threads [32] target "nosuch" {
  tirx.return
}
