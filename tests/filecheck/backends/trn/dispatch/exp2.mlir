// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.exp2 on trn: activation exp with scale * ln 2 (and bias * ln 2; a [P, 1] bias is scaled by
// a tensor_scalar first).

tirx.kernel @exp2() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.exp2 %a, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @exp2
// CHECK:       [[L:%.*]] = arith.constant 0.69314{{[0-9]*}} : f32
// CHECK:       nki.activation %a, %a func exp scale [[L]] :

// -----

tirx.kernel @exp2_vector_bias() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.exp2 %a, %a bias %v : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @exp2_vector_bias
// CHECK:       nki.tensor_scalar [[B:%.*]], %v, %{{.*}} op0 multiply
// CHECK-NEXT:  nki.activation %a, %a func exp bias [[B]] scale
