// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.compose_op on trn: fuse (exp then sum of its result -> one activation_reduce; two in-place
// binary ops -> binary_chain), else inline.

tirx.kernel @fuse_exp_sum() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.compose_op {
    tirx.exp %y, %x : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.sum %v, %y : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK-LABEL: @fuse_exp_sum
// CHECK-NOT:   tirx.compose_op
// CHECK:       nki.activation_reduce %y, %v, %x func exp :

// -----

tirx.kernel @fuse_chain() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %c = arith.constant 2.0 : f32
  tirx.compose_op {
    tirx.sub %y, %x, %m : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
    tirx.mul %y, %y, %c : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  }
  tirx.return
}

// CHECK-LABEL: @fuse_chain
// CHECK:       nki.tensor_scalar %y, %x, %m op0 subtract operand1 %c op1 multiply :

// -----

tirx.kernel @inline() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.compose_op {
    tirx.add %x, %x, %x : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.max %v, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK-LABEL: @inline
// CHECK:       nki.tensor_tensor %x, %x, %x op add
// CHECK-NEXT:  nki.tensor_reduce %v, %x op maximum
