// ARGS: --disable-verify -t nki
// EXPECT-ERROR: ALU operator 'add, __import__
// Unverified IR whose ALU operator would inject Python into the NKI text: the printer refuses it.
tirx.kernel @k(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc {trn.addr = 2048 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %one = arith.constant 1.0 : f32
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  "nki.tensor_scalar"(%b, %a, %one) <{op0 = "add, __import__(\"sys\").exit(3)) #", operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32) -> ()
  nki.store %B, %b : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
