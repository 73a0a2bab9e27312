// EXPECT-ERROR: must be a !tirx.buffer
tirx.kernel @k(%n: index) grid [1] threads [1] {
  tirx.return
}
