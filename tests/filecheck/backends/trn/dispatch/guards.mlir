// RUN: tirx-opt %s --split-input-file --print-diagnostics -p trn-default-layout,tirx-dispatch | filecheck %s
// Guarded views (a tirx.slice size given by an index value): each instruction's views keep the
// guard, so the instruction covers the guarded rows only; scratch tiles beside them (the f32
// reciprocal of a division) are guarded alike. tests/backends/trn/dispatch/test_guards.py runs
// such kernels at every stage.

tirx.kernel @rows(%X: !tirx.buffer<1000x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %xs = tirx.slice %x[0, 0] [%n, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.copy %xs, %src : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.fdiv %xs, %xs, %xs : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK-LABEL: @rows
// CHECK:       %src = tirx.slice %X[%row, 0] [%n, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
// CHECK:       %xs = tirx.slice %x[0, 0] [%n, 512]
// CHECK:       nki.load %xs, %src :
// CHECK:       %[[R:.*]] = tirx.slice %{{.*}}[0, 0] [%n, 512] : !tirx.buffer<128x512xf32, trn.sbuf, {{.*}}> -> !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT:  nki.reciprocal %[[R]], %xs
// CHECK-NEXT:  nki.tensor_tensor %xs, %xs, %[[R]] op multiply

// -----

tirx.kernel @unlike() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %n = arith.addi %i, %c100 : index
    %m = arith.addi %i, %c1 : index
    %a = tirx.slice %x[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    %b = tirx.slice %x[0, 0] [%m, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.add %a, %a, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK: guards.mlir:[[# @LINE - 5]]:5: error: {{.*}}tile dispatch failed: op=tirx.add target=trn
// CHECK: ragged (prio=100) | rejected: guards — operand 'dst' has a dynamic extent (a guarded tirx.slice), which this variant does not take
// CHECK: binary (prio=0)   | declined — dim 0 is guarded in one operand but operand 'rhs' has another guard; guard every operand of the op alike
