// TOOL: tirx-run
// EXPECT-ERROR: cannot allocate output %C of @k: 18446744073709551616 f32 is 18,446,744,073,709,551,616 elements
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<18446744073709551616xf32, global>) grid [1] threads [1] {
  tirx.return
}
