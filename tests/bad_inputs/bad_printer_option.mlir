// ARGS: -t mlir{colour=1}
// EXPECT-CLI-ERROR: invalid options for -t mlir
tirx.kernel @k() grid [1] threads [1] {
  tirx.return
}
