// RUN: not tirx-run %s 2>&1 | filecheck %s

// A dynamic offset that leaves the buffer in the last CTA is a run-time error at the slice.
// CHECK:      tirx_run_errors.mlir:[[# @LINE + 8]]:3: error: 'tirx.slice' op dim 0: elements [6, 9] are out of bounds for extent 8 (in CTA (2, 0, 0) of @k)
// CHECK-NEXT: hint: check the (dynamic) offsets of the slice against the buffer's shape
// CHECK-NOT:  Traceback

tirx.kernel @k(%X: !tirx.buffer<8xf32, global>) -> (%Y: !tirx.buffer<8xf32, global>) grid [3] threads [1] {
  %cta = tirx.cta_id x : index
  %c3 = arith.constant 3 : index
  %o = arith.muli %cta, %c3 : index
  %v = tirx.slice %X[%o] [4] : !tirx.buffer<8xf32, global> -> !tirx.buffer<4xf32, global>
  tirx.return
}
