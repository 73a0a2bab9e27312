// ARGS: -t cuda
// EXPECT-ERROR: @k has an invalid target: target kind 'trn': attribute 'partitions' must be in [1, 1024]; got 0
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) grid [1] threads [32] target "aws/trn1/trn1.2xlarge -partitions=0" {
  tirx.return
}
