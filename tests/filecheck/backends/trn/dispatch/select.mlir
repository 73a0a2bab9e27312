// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.select on trn (default): affine_select with the predicate in instruction coordinates
// (offset + p * channel_multiplier + pattern); the constant-true form negates it; each instruction
// tile gets its own constant offset.

tirx.kernel @causal() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %f = arith.constant -3.0e38 : f32
  tirx.select %y, %x, %f where (d0, d1) : (d0 - d1 + 384 >= 0) : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @causal
// CHECK:       nki.affine_select %y, %x pattern [[-1, 512]] offset 384 channel_multiplier 1 cmp greater_equal on_false -3.0{{.*}}e+38 :

// -----

tirx.kernel @negated() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %t = arith.constant 1.0 : f32
  tirx.select %y, %t, %x where (d0, d1) : (d1 - d0 >= 0) : !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @negated
// CHECK:       nki.affine_select %y, %x pattern [[-1, 512]] offset -1 channel_multiplier 1 cmp greater_equal on_false 1.0 :

// -----

tirx.kernel @split_rows() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %f = arith.constant 0.0 : f32
  tirx.select %y, %x, %f where (d0, d1) : (d0 - d1 >= 0) : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @split_rows
// CHECK:       nki.affine_select {{.*}} pattern [[-1, 512]] offset 0 channel_multiplier 1
// CHECK:       nki.affine_select {{.*}} pattern [[-1, 512]] offset 128 channel_multiplier 1
