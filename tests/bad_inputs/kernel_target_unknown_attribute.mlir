// EXPECT-ERROR: @k has an invalid target: target kind 'trn' has no attribute 'sbuf_bytes'
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) grid [1] threads [32] target "aws/trn1/trn1.2xlarge -sbuf_bytes=0" {
  tirx.return
}
