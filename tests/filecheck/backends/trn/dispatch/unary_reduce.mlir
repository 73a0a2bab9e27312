// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.unary_reduce on trn: activation_reduce for exp/exp2/sqrt/silu with a sum (two-stage through
// partial sums when split); other pairs decompose into the unary op and the reduction.

tirx.kernel @exp_sum() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.unary_reduce %x, %v, %x bias %m unary exp reduce sum : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @exp_sum
// CHECK:       nki.activation_reduce %x, %v, %x func exp bias %m :

// -----

tirx.kernel @exp_sum_split() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.unary_reduce %x, %v, %x unary exp reduce sum config {max_inst_size = 1024} : !tirx.buffer<128x2048xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @exp_sum_split
// CHECK:       [[PART:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x2xf32, trn.sbuf, S[{{.*}}]>
// CHECK:       scf.for
// CHECK:         nki.activation_reduce {{.*}} func exp : !tirx.buffer<128x1024xf32
// CHECK:       nki.tensor_reduce %v, [[PART]] op add

// -----

tirx.kernel @sqrt_max() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.unary_reduce %x, %v, %x unary sqrt reduce max : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @sqrt_max
// CHECK:       nki.activation %x, %x func sqrt
// CHECK-NEXT:  nki.tensor_reduce %v, %x op maximum
