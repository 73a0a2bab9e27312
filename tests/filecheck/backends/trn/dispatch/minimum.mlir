// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.minimum on trn (variant binary): two tiles -> tensor_tensor; a scalar or [P, 1] operand ->
// tensor_scalar (reverse0 when it is the left one).

tirx.kernel @minimum_tiles() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.minimum %a, %a, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @minimum_tiles
// CHECK-NOT:   tirx.minimum
// CHECK:       nki.tensor_tensor %a, %a, %b op minimum :

// -----

tirx.kernel @minimum_scalar_lhs() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = arith.constant 2.0 : f32
  tirx.minimum %a, %c, %a : !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @minimum_scalar_lhs
// CHECK:       nki.tensor_scalar %a, %a, %c op0 minimum reverse0 :

// -----

tirx.kernel @minimum_vector() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.minimum %a, %a, %v : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @minimum_vector
// CHECK:       nki.tensor_scalar %a, %a, %v op0 minimum : {{.*}}, !tirx.buffer<128x1xf32, trn.sbuf{{.*}}>
