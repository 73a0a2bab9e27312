// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.fma on trn: two-operator tensor_scalar for scalar/[P, 1] scale and bias,
// scalar_tensor_tensor for a full-tile bias.

tirx.kernel @fma_scalars() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %b = arith.constant 1.5 : f32
  tirx.fma %a, %a, %v, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @fma_scalars
// CHECK:       nki.tensor_scalar %a, %a, %v op0 multiply operand1 %b op1 add :

// -----

tirx.kernel @fma_full_bias() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %s = arith.constant 2.0 : f32
  tirx.fma %a, %a, %s, %c : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @fma_full_bias
// CHECK:       nki.scalar_tensor_tensor %a, %a, %s, %c op0 multiply op1 add :
