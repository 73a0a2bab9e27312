// ARGS: --allow-unregistered-dialect
// EXPECT-ERROR: 'd0 floordiv d1' is not affine
"test.op"() {m = affine_map<(d0, d1) -> (d0 floordiv d1)>} : () -> ()
