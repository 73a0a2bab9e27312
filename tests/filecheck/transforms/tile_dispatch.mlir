// Tile dispatch (tirx-dispatch) with the test-only backend of tests/backends/testbackends:
// its variants leave `test.op {variant = ...}` markers, so each rule of the search is visible.
// RUN: env TIRX_MLIR_BACKEND_PATH=%S/../../backends/testbackends TIRX_MLIR_BACKENDS=tirx_test tirx-opt %s --split-input-file -p tirx-dispatch | filecheck %s

// The highest priority variant whose predicates accept wins.
// CHECK-LABEL: tirx.kernel @best
// CHECK-NEXT:    "test.op"(%Y, %X) {variant = "fast"}
// CHECK-NEXT:    tirx.return
tirx.kernel @best(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/small" {
  tirx.copy %Y, %X : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}

// -----

// fast is rejected on test/wide; alpha and beta tie at priority 5: alpha wins by name.
// CHECK-LABEL: tirx.kernel @tie
// CHECK-NEXT:    "test.op"() {variant = "alpha-started"}
// CHECK-NEXT:    "test.op"(%Y, %X) {variant = "alpha"}
tirx.kernel @tie(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/wide" {
  tirx.copy %Y, %X : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}

// -----

// alpha declines: nothing it built survives, beta runs.
// CHECK-LABEL: tirx.kernel @decline
// CHECK-NOT:     alpha
// CHECK:         "test.op"() {variant = "beta-started"}
// CHECK-NEXT:    "test.op"(%Y, %X) {variant = "beta"}
tirx.kernel @decline(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/wide" {
  tirx.copy %Y, %X config {decline_alpha} : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}

// -----

// A forced variant is the only one tried (a forced-only variant needs it).
// CHECK-LABEL: tirx.kernel @forced
// CHECK-NEXT:    "test.op"(%Y, %X) {variant = "vec_forced"}
tirx.kernel @forced(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/small" {
  tirx.copy %Y, %X dispatch "vec_forced" : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}

// -----

// A variant emitting a tile op: the nested tirx.copy is dispatched in turn.
// CHECK-LABEL: tirx.kernel @nested
// CHECK-NEXT:    "test.op"(%Y, %X) {variant = "fast"}
// CHECK-NEXT:    "test.op"(%Y, %X) {variant = "add-rhs"}
// CHECK-NOT:     tirx.copy
tirx.kernel @nested(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/small" {
  tirx.add %Y, %X, %X : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}

// -----

// One private buffer for the key "lut", allocated and initialised once at kernel entry; each
// op's init code follows, in order, before the first original op.
// CHECK-LABEL: tirx.kernel @private
// CHECK-NEXT:    %[[LUT:.*]] = tirx.alloc : !tirx.buffer<4xf32, tirx_test.scratch>
// CHECK-NEXT:    "test.op"(%[[LUT]]) {init = "lut"}
// CHECK-NEXT:    "test.op"() {init = "exp-once"}
// CHECK-NEXT:    "test.op"() {init = "exp-once"}
// CHECK-NEXT:    "test.op"(%Y, %X, %[[LUT]]) {variant = "with_lut"}
// CHECK-NEXT:    "test.op"(%X, %Y, %[[LUT]]) {variant = "with_lut"}
// CHECK-NOT:     tirx.alloc
tirx.kernel @private(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/small" {
  tirx.exp %Y, %X : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.exp %X, %Y : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}
