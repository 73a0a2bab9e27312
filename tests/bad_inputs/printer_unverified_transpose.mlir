// ARGS: --disable-verify -t nki
// EXPECT-ERROR: permutation [1, 1000000000000] is not a permutation
// A printer on unverified IR blames the op whose own verifier fails (a fuzz find: IndexError)
tirx.kernel @k(%A: !tirx.buffer<8x128xf32, global>) -> (%B: !tirx.buffer<128x8xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %s = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x8xf32, trn.sbuf>
  %t = tirx.transpose %A [1, 1000000000000] : !tirx.buffer<8x128xf32, global> -> !tirx.buffer<128x8xf32, global>
  nki.load %s, %t : !tirx.buffer<128x8xf32, trn.sbuf>, !tirx.buffer<128x8xf32, global>
  tirx.return
}
