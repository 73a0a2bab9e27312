// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.add on trn (variant binary): two tiles -> tensor_tensor; a scalar or [P, 1] operand ->
// tensor_scalar (reverse0 when it is the left one).

tirx.kernel @add_tiles() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.add %a, %a, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @add_tiles
// CHECK-NOT:   tirx.add
// CHECK:       nki.tensor_tensor %a, %a, %b op add :

// -----

tirx.kernel @add_scalar_lhs() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = arith.constant 2.0 : f32
  tirx.add %a, %c, %a : !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @add_scalar_lhs
// CHECK:       nki.tensor_scalar %a, %a, %c op0 add reverse0 :

// -----

tirx.kernel @add_vector() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.add %a, %a, %v : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @add_vector
// CHECK:       nki.tensor_scalar %a, %a, %v op0 add : {{.*}}, !tirx.buffer<128x1xf32, trn.sbuf{{.*}}>
