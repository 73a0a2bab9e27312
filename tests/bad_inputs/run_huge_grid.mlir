// TOOL: tirx-run
// ARGS: --max-steps 20000
// EXPECT-ERROR: whose grid has 4,611,686,014,132,420,609 CTAs
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [2147483647, 2147483647] threads [1] {
  tirx.return
}
