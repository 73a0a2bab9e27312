// ARGS: --disable-verify -t nki-legacy
// EXPECT-ERROR: activation function
// Unverified IR whose activation function would inject a statement: the legacy printer refuses it.
tirx.kernel @k(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc {trn.addr = 2048 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  "nki.activation"(%b, %a) <{func = "exp)\n__import__(\"sys\")#", operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>) -> ()
  nki.store %B, %b : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
