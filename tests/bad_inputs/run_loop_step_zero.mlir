// TOOL: tirx-run
// ARGS: --inputs zeros4.npy
// EXPECT-ERROR: 'scf.for' op the loop step is 0; an scf.for step must be positive
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [1] threads [1] {
  %lb = arith.constant 0 : index
  %ub = arith.constant 10 : index
  %a = tirx.load %A[%lb] : !tirx.buffer<4xf32, global>
  %si = arith.fptosi %a : f32 to i64
  %st = arith.index_cast %si : i64 to index
  scf.for %i = %lb to %ub step %st {
    scf.yield
  }
  tirx.return
}
