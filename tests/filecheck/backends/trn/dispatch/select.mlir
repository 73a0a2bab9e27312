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

// -----

// A predicate over a loop variable (a symbol): the ragged last row tile of a 300-row tensor,
// `i * 128 + d0 < 300`. The symbols' part (-128 * i) is computed once and added to each
// instruction's constant offset through offset_index.
tirx.kernel @loop_symbol() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %f = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    tirx.select %y, %x, %f where (d0, d1)[s0] : (299 - s0 * 128 - d0 >= 0) symbols [%i] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, index
  }
  tirx.return
}

// CHECK-LABEL: @loop_symbol
// CHECK:       scf.for %i =
// CHECK:         %[[K:.*]] = arith.constant -128 : index
// CHECK-NEXT:    %[[S:.*]] = arith.muli %i, %[[K]] : index
// CHECK-NEXT:    nki.affine_select %y, %x offset_index %[[S]] pattern [[0, 64]] offset 299 channel_multiplier -1 cmp greater_equal on_false 0.0 : {{.*}}, index

// -----

// The constant as the true value negates the one constraint, symbols' part included.
tirx.kernel @negated_symbol() grid [2] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %t = arith.constant 1.0 : f32
  %b = tirx.cta_id x : index
  tirx.select %y, %t, %x where (d0, d1)[s0] : (d1 - s0 * 32 >= 0) symbols [%b] : !tirx.buffer<128x64xf32, trn.sbuf>, f32, !tirx.buffer<128x64xf32, trn.sbuf>, index
  tirx.return
}

// CHECK-LABEL: @negated_symbol
// CHECK:       %[[K:.*]] = arith.constant 32 : index
// CHECK-NEXT:  %[[S:.*]] = arith.muli %b, %[[K]] : index
// CHECK-NEXT:  nki.affine_select %y, %x offset_index %[[S]] pattern [[-1, 64]] offset -1 channel_multiplier 0 cmp greater_equal on_false 1.0 :
