// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch,canonicalize,dce | filecheck %s
// Ragged shapes on trn: an op whose dims do not split into equal instruction tiles runs as its
// regular part (a loop over full tiles) and its remainder (one smaller instruction), on the
// partition dim (257 rows = 2 x 128 + 1) and on the free dim (1009 columns = 512 + 497).

tirx.kernel @ragged_rows() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<257x512xf32, trn.sbuf>
  tirx.exp %x, %x : !tirx.buffer<257x512xf32, trn.sbuf>, !tirx.buffer<257x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @ragged_rows
// CHECK:       %x = tirx.alloc : !tirx.buffer<257x512xf32, trn.sbuf, S[(3,128,512):(512@F,1@P,1@F)]>
// CHECK:       scf.for
// CHECK:         nki.activation %{{.*}}, %{{.*}} func exp : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK:       }
// CHECK:       nki.activation %{{.*}}, %{{.*}} func exp : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
// CHECK-NOT:   nki.

// -----

tirx.kernel @ragged_columns() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x1009xf32, trn.sbuf>
  %two = arith.constant 2.0 : f32
  tirx.mul %x, %x, %two : !tirx.buffer<128x1009xf32, trn.sbuf>, !tirx.buffer<128x1009xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @ragged_columns
// CHECK:       nki.tensor_scalar %{{.*}}, %{{.*}}, %two op0 multiply : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
// CHECK:       nki.tensor_scalar %{{.*}}, %{{.*}}, %two op0 multiply : !tirx.buffer<128x497xf32, trn.sbuf>, !tirx.buffer<128x497xf32, trn.sbuf>, f32
// CHECK-NOT:   nki.

// -----

tirx.kernel @ragged_row_reduce() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<300x64xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<300x1xf32, trn.sbuf>
  tirx.sum %s, %x : !tirx.buffer<300x1xf32, trn.sbuf>, !tirx.buffer<300x64xf32, trn.sbuf>
  tirx.return
}

// The two full row tiles reduce in one instruction ([128, 2, 64] -> [128, 2]); the last 44 rows
// in one more.
// CHECK-LABEL: @ragged_row_reduce
// CHECK:       nki.tensor_reduce %{{.*}}, %{{.*}} op add axes [2] : !tirx.buffer<128x2xf32, trn.sbuf>, !tirx.buffer<128x2x64xf32, trn.sbuf>
// CHECK:       nki.tensor_reduce %{{.*}}, %{{.*}} op add axes [1] keepdims : !tirx.buffer<44x1xf32, trn.sbuf>, !tirx.buffer<44x64xf32, trn.sbuf>
// CHECK-NOT:   nki.

// -----

tirx.kernel @ragged_gemm_k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<200x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<200x256xf32, trn.sbuf>
  %d = tirx.alloc : !tirx.buffer<128x256xf32, trn.psum>
  tirx.gemm %d, %a, %b transpose_a : !tirx.buffer<128x256xf32, trn.psum>, !tirx.buffer<200x128xf32, trn.sbuf>, !tirx.buffer<200x256xf32, trn.sbuf>
  tirx.return
}

// K = 200 = 128 + 72: the second piece accumulates into the first one's result.
// CHECK-LABEL: @ragged_gemm_k
// CHECK:       nki.matmul %d, %{{.*}}, %{{.*}} : !tirx.buffer<128x256xf32, trn.psum, {{.*}}>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x256xf32, trn.sbuf>
// CHECK:       nki.matmul %d, %{{.*}}, %{{.*}} accumulate : !tirx.buffer<128x256xf32, trn.psum, {{.*}}>, !tirx.buffer<72x128xf32, trn.sbuf>, !tirx.buffer<72x256xf32, trn.sbuf>
// CHECK-NOT:   nki.
