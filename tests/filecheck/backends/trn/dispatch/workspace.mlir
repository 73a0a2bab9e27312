// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// Caller-supplied scratch (`workspace [%w]`): the variant views the workspace as the tile it
// needs (a slice of its first partitions and free elements, reshaped) instead of allocating one.

// The PSUM accumulator of a gemm into SBUF.
tirx.kernel @gemm_acc() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x256xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x256xf32, trn.sbuf>
  %acc = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  tirx.gemm %c, %a, %b transpose_a workspace [%acc] : !tirx.buffer<128x256xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x256xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.return
}

// CHECK-LABEL: @gemm_acc
// CHECK:       %acc = tirx.alloc
// CHECK-NOT:   tirx.alloc : !tirx.buffer<{{.*}}trn.psum
// CHECK:       %[[V:.*]] = tirx.slice %acc[0, 0] [128, 256]
// CHECK:       nki.matmul %[[V]], %{{.*}}, %{{.*}} :
// CHECK:       nki.tensor_copy %c, %[[V]] :

// -----

// The partial-result buffer of a two-stage reduction: 2048 columns in 4 instructions of 512.
tirx.kernel @sum_partial() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %w = tirx.alloc : !tirx.buffer<128x8xf32, trn.sbuf>
  tirx.sum %s, %x workspace [%w] config {max_inst_size = 512} : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>, !tirx.buffer<128x8xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @sum_partial
// CHECK:       %w = tirx.alloc
// CHECK-NOT:   tirx.alloc
// CHECK:       %[[P:.*]] = tirx.slice %w[0, 0] [128, 4]
// CHECK:       scf.for
// CHECK:         nki.tensor_reduce %{{.*}}, %{{.*}} op add axes [1]
// CHECK:       nki.tensor_reduce %s, %[[P]] op add axes [1]

// -----

// The PSUM staging tile of a transposing copy into SBUF.
tirx.kernel @transpose_staging() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %t = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  %st = tirx.alloc : !tirx.buffer<128x128xf32, trn.psum>
  tirx.copy %t, %x workspace [%st] : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.psum>
  tirx.return
}

// CHECK-LABEL: @transpose_staging
// CHECK:       %st = tirx.alloc
// CHECK-NOT:   tirx.alloc : !tirx.buffer<{{.*}}trn.psum
// CHECK:       nki.matmul %st, %{{.*}}, %{{.*}} :
// CHECK:       nki.tensor_copy %{{.*}}, %st :
