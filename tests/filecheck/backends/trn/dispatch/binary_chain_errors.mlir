// RUN: tirx-opt %s --print-diagnostics -p trn-default-layout,tirx-dispatch | filecheck %s
// A tile op that a variant decomposes another into and that no variant accepts is reported at
// the op the user wrote (binary_chain, line 12), naming the decomposition, with the inner op's table.

tirx.kernel @chain(%X: !tirx.buffer<128x128xf32, global>) -> (%Y: !tirx.buffer<128x128xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %t = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  %y = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %k = arith.constant 2.0 : f32
  tirx.copy %x, %X : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  tirx.copy %t, %X : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, global>
  tirx.binary_chain %y, %t, %x, %k op0 mul op1 add : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, trn.sbuf>, f32
  tirx.copy %Y, %y : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}

// CHECK:      binary_chain_errors.mlir:12:3: error: 'tirx.binary_chain' op tile dispatch failed: op=tirx.binary_chain: it decomposes as tirx.binary_chain (variant 'decompose') into tirx.mul, which cannot be dispatched:
// CHECK-NEXT: tile dispatch failed: op=tirx.mul target=trn
// CHECK-NEXT: Variant           | Error
// CHECK-NEXT: ------------------+-----------------------------------------
// CHECK-NEXT: ragged (prio=100) | rejected: ragged — every dim splits into equal instruction tiles
// CHECK-NEXT: binary (prio=0)   | declined — operand 'lhs' does not put dim 0 on partitions like 'dst' does (partition mismatch: a transpose is needed)
// CHECK:      note: see current operation: "tirx.binary_chain"
