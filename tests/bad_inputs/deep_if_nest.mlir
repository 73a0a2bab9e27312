// EXPECT-ERROR: tirx_mlir accepts at most 128 levels
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %t = arith.constant true
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
scf.if %t {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
  tirx.return
}
