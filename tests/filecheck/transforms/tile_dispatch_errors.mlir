// tirx-dispatch failures are located at the op, with one row per variant and its reason.
// RUN: env TIRX_MLIR_BACKEND_PATH=%S/../../backends/testbackends TIRX_MLIR_BACKENDS=tirx_test not tirx-opt %s -p tirx-dispatch 2>&1 | filecheck %s

// CHECK:      tile_dispatch_errors.mlir:[[# @LINE + 8]]:3: error: {{.*}}tile dispatch failed: op=tirx.copy target=tirx_test
// CHECK-NEXT: Variant              | Error
// CHECK:      vec_forced (prio=20) | rejected: forced_only — only used when forced with dispatch "vec_forced"
// CHECK-NEXT: fast (prio=10)       | rejected: target_fast — target has fast=false
// CHECK-NEXT: crashy (prio=7)      | rejected: crash_if_asked — predicate exception: ZeroDivisionError: integer division or modulo by zero
// CHECK-NEXT: alpha (prio=5)       | declined — config says decline_alpha
// CHECK-NEXT: beta (prio=5)        | impl raised: ValueError: beta cannot copy this
tirx.kernel @all_fail(%X: !tirx.buffer<16x4xf32, global>) -> (%Y: !tirx.buffer<16x4xf32, global>) grid [1] threads [1] target "test/wide" {
  tirx.copy %Y, %X config {crash, decline_alpha, beta_raises} : !tirx.buffer<16x4xf32, global>, !tirx.buffer<16x4xf32, global>
  tirx.return
}
