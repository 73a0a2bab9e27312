// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.gemm_async on trn (variant gemm): the equivalent tirx.gemm (B K-major: transposed), accum
// as beta = 1, dispatched in turn.

tirx.kernel @gemm_async() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  %p = tirx.alloc : !tirx.buffer<128x128xf32, trn.psum>
  tirx.gemm_async %p, %a, %b transpose_a accum : !tirx.buffer<128x128xf32, trn.psum>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  tirx.return
}

// CHECK-LABEL: @gemm_async
// CHECK-NOT:   tirx.gemm
// CHECK:       nki.matmul %p, %{{.*}}, %{{.*}} accumulate :
