// TOOL: tirx-run
// EXPECT-ERROR: 'func.call' op [call-depth] calls nest deeper than 100 levels
func.func @f(%x: index) -> index {
  %r = func.call @f(%x) : (index) -> index
  func.return %r : index
}
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [1] threads [1] {
  %z = arith.constant 0 : index
  %r = func.call @f(%z) : (index) -> index
  tirx.return
}
