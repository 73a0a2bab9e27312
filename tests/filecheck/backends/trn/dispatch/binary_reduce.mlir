// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.binary_reduce on trn: tensor_scalar_reduce for a scalar or [P, 1] operand; two full tiles
// decompose into the binary op and the reduction.

tirx.kernel @scale_sum() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %c = arith.constant 0.5 : f32
  tirx.binary_reduce %y, %v, %x, %c binary mul reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @scale_sum
// CHECK:       nki.tensor_scalar_reduce %y, %v, %x, %c op0 multiply reduce add :

// -----

tirx.kernel @tiles() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.binary_reduce %y, %v, %x, %x binary mul reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @tiles
// CHECK:       nki.tensor_tensor %y, %x, %x op multiply
// CHECK-NEXT:  nki.tensor_reduce %v, %y op add
