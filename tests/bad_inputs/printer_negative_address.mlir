// ARGS: --disable-verify -t nki
// EXPECT-ERROR: trn.addr = -4096 does not place
// A negative trn.addr, unverified: the printer checks addresses against the memory itself.
tirx.kernel @k(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc {trn.addr = -4096 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.store %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
