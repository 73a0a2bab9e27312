// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.binary_chain on trn (default): two-operator tensor_scalar, or scalar_tensor_tensor when
// operand1 is a tile; a full-tile operand0 decomposes.

tirx.kernel @scalars() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.binary_chain %x, %x, %m, %r op0 sub op1 mul : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @scalars
// CHECK:       nki.tensor_scalar %x, %x, %m op0 subtract operand1 %r op1 multiply :

// -----

tirx.kernel @tile_operand1() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %g = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.binary_chain %x, %x, %r, %g op0 mul op1 sub reverse1 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @tile_operand1
// CHECK:       nki.scalar_tensor_tensor %x, %x, %r, %g op0 multiply op1 subtract reverse1 :

// -----

tirx.kernel @tile_operand0() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %g = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = arith.constant 2.0 : f32
  tirx.binary_chain %x, %x, %g, %c op0 add op1 mul : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @tile_operand0
// CHECK:       nki.tensor_tensor [[T:%.*]], %x, %g op add
// CHECK-NEXT:  nki.tensor_scalar %x, [[T]], %c op0 multiply
