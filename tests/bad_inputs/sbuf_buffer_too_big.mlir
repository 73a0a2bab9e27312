// ARGS: --pass-pipeline=trn
// EXPECT-ERROR: does not fit in trn.sbuf: kernel @big needs 200000 bytes per partition at its peak but trn.sbuf has 180224 usable bytes per partition
tirx.kernel @big(%X: !tirx.buffer<128x50000xf32, global>) -> (%Y: !tirx.buffer<128x50000xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x50000xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x50000xf32, trn.sbuf>, !tirx.buffer<128x50000xf32, global>
  tirx.copy %Y, %x : !tirx.buffer<128x50000xf32, global>, !tirx.buffer<128x50000xf32, trn.sbuf>
  tirx.return
}
