// EXPECT-ERROR: must have 1 to 3 positive dims
tirx.kernel @k() grid [1, 2, 3, 4] threads [1] {
  tirx.return
}
