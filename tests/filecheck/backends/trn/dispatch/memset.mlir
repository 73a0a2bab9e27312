// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.memset / tirx.fill / tirx.zero on trn: nki.memset, as large as the hardware allows.

tirx.kernel @memset() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %c = arith.constant 3.0 : f32
  tirx.memset %a, %c : !tirx.buffer<128x2048xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @memset
// CHECK-NOT:   scf.for
// CHECK:       nki.memset %a, %c : !tirx.buffer<128x2048xf32

// -----

tirx.kernel @fill_zero() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %i = tirx.alloc : !tirx.buffer<128x4xi32, trn.sbuf>
  %c = arith.constant 3.0 : f32
  tirx.fill %a, %c : !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.zero %i : !tirx.buffer<128x4xi32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @fill_zero
// CHECK:       nki.memset %a, %c : {{.*}}, f32
// CHECK:       [[Z:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:  nki.memset %i, [[Z]] : {{.*}}, i32
