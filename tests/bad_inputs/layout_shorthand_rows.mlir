// EXPECT-ERROR: invalid layout: layout shorthand "PF": the P dim has 300 rows, neither at most 128 nor a multiple of it
tirx.kernel @k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<300x64xf32, trn.sbuf, "PF">
  tirx.return
}
