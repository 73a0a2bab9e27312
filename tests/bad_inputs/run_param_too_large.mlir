// TOOL: tirx-run
// EXPECT-ERROR: cannot allocate random input %A of @k: 1000000x1000000 f32 is 1,000,000,000,000 elements, 3.64 TiB
tirx.kernel @k(%A: !tirx.buffer<1000000x1000000xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [1] threads [1] {
  tirx.return
}
