// EXPECT-ERROR: out of range for type i64
tirx.kernel @k() grid [99999999999999999999999] threads [1] {
  tirx.return
}
