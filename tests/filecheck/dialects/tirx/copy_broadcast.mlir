// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s
// tirx.copy broadcasts its source like the elementwise ops do (NumPy rules, right-aligned): a
// [1, N] row or an [N] vector into every row of [P, N]; other mismatches are errors.

%d, %r, %v = "test.op"() : () -> (!tirx.buffer<128x64xf32, shared>, !tirx.buffer<1x64xf32, global>, !tirx.buffer<64xf32, global>)
tirx.copy %d, %r : !tirx.buffer<128x64xf32, shared>, !tirx.buffer<1x64xf32, global>
tirx.copy_async %d, %v : !tirx.buffer<128x64xf32, shared>, !tirx.buffer<64xf32, global>
// CHECK:      tirx.copy %d, %r : !tirx.buffer<128x64xf32, shared>, !tirx.buffer<1x64xf32, global>
// CHECK-NEXT: tirx.copy_async %d, %v : !tirx.buffer<128x64xf32, shared>, !tirx.buffer<64xf32, global>

// -----

%d, %r = "test.op"() : () -> (!tirx.buffer<128x64xf32, shared>, !tirx.buffer<128x1xf32, shared>)
tirx.permute_layout %d, %r : !tirx.buffer<128x64xf32, shared>, !tirx.buffer<128x1xf32, shared>
// CHECK: copy_broadcast.mlir:[[# @LINE - 1]]:1: error: 'tirx.permute_layout' op tirx.permute_layout: shapes [128, 64] and [128, 1] differ (after dropping unit dims); slice the operands to the same shape
