// RUN: tirx-opt %s --split-input-file -p trn-default-layout,trn-lower-layout | filecheck %s
// trn-lower-layout: logical buffers become physical [P, F] tiles and each instruction operand a
// slice of the tile at its physical offset (split rows move to F; a transposed layout swaps dims;
// several free dims come from a reshape of one run, the tile padded when the run reaches past
// its end).

tirx.kernel @split_rows() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
  %v = tirx.slice %x[128, 512] [128, 512] : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]> -> !tirx.buffer<128x512xf32, trn.sbuf>
  %z = arith.constant 0.0 : f32
  nki.memset %v, %z : !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @split_rows
// CHECK:       %x = tirx.alloc : !tirx.buffer<128x4096xf32, trn.sbuf>
// CHECK:       [[V:%.*]] = tirx.slice %x[0, 2560] [128, 512] : !tirx.buffer<128x4096xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK:       nki.memset [[V]], %z

// -----

tirx.kernel @transposed() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]>
  %t = tirx.transpose %x [1, 0] : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]> -> !tirx.buffer<96x128xf32, trn.sbuf>
  %z = arith.constant 0.0 : f32
  nki.memset %t, %z : !tirx.buffer<96x128xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @transposed
// CHECK:       %x = tirx.alloc : !tirx.buffer<96x128xf32, trn.sbuf>
// CHECK-NEXT:  %z = arith.constant
// CHECK-NEXT:  nki.memset %x, %z : !tirx.buffer<96x128xf32, trn.sbuf>, f32

// -----

tirx.kernel @free_dims() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x2x256xf32, trn.sbuf>
  %v = tirx.slice %x[0, 1, 0] [128, 2, 256] strides [1, 2, 1] : !tirx.buffer<128x4x512xf32, trn.sbuf> -> !tirx.buffer<128x2x256xf32, trn.sbuf>
  nki.tensor_copy %y, %v : !tirx.buffer<128x2x256xf32, trn.sbuf>, !tirx.buffer<128x2x256xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @free_dims
// CHECK:       %x = tirx.alloc : !tirx.buffer<128x2560xf32, trn.sbuf>
// CHECK:       [[SEG:%.*]] = tirx.slice %x[0, 512] [128, 2048] : !tirx.buffer<128x2560xf32, trn.sbuf> -> !tirx.buffer<128x2048xf32, trn.sbuf>
// CHECK:       [[SPLIT:%.*]] = tirx.reshape [[SEG]] : !tirx.buffer<128x2048xf32, trn.sbuf> -> !tirx.buffer<128x2x1024xf32, trn.sbuf>
// CHECK:       [[V:%.*]] = tirx.slice [[SPLIT]][0, 0, 0] [128, 2, 256] : {{.*}} -> !tirx.buffer<128x2x256xf32, trn.sbuf>
// CHECK:       nki.tensor_copy %{{.*}}, [[V]]
