// TOOL: tirx-run
// ARGS: --max-steps 20000
// EXPECT-ERROR: 'scf.for' op [step-budget] the run exceeded its budget of 20,000 steps
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [1] threads [1] {
  %lb = arith.constant 0 : index
  %ub = arith.constant 1000000000000 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %lb) -> (index) {
    %n = arith.addi %acc, %st : index
    scf.yield %n : index
  }
  tirx.return
}
