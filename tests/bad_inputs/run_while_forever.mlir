// TOOL: tirx-run
// ARGS: --max-steps 20000
// EXPECT-ERROR: 'scf.while' op [step-budget] the run exceeded its budget of 20,000 steps
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [1] threads [1] {
  %z = arith.constant 0 : index
  %r = scf.while (%x = %z) : (index) -> index {
    %t = arith.constant true
    scf.condition(%t) %x : index
  } do {
  ^bb0(%y: index):
    scf.yield %y : index
  }
  tirx.return
}
