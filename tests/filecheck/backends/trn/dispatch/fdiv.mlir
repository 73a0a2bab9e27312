// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.fdiv on trn (variant binary): two tiles -> tensor_tensor (fdiv: reciprocal then multiply);
// a scalar or [P, 1] operand -> tensor_scalar (reverse0 when it is the left one).

tirx.kernel @fdiv_tiles() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.fdiv %a, %a, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @fdiv_tiles
// CHECK-NOT:   tirx.fdiv
// CHECK:       nki.reciprocal [[R:%.*]], %b
// CHECK-NEXT:  nki.tensor_tensor %a, %a, [[R]] op multiply

// -----

tirx.kernel @fdiv_scalar_lhs() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = arith.constant 2.0 : f32
  tirx.fdiv %a, %c, %a : !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @fdiv_scalar_lhs
// CHECK:       nki.tensor_scalar %a, %a, %c op0 divide reverse0 :

// -----

tirx.kernel @fdiv_vector() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.fdiv %a, %a, %v : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @fdiv_vector
// CHECK:       nki.tensor_scalar %a, %a, %v op0 divide : {{.*}}, !tirx.buffer<128x1xf32, trn.sbuf{{.*}}>
