// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.sum on trn (reduction): tensor_reduce over trailing free dims (kept free dims stay in the
// instruction); two-stage when max_inst_size splits a row; accum folds the old value in.

tirx.kernel @sum_rows() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<128x4xf32, trn.sbuf>
  tirx.sum %r, %x axes [-1] : !tirx.buffer<128x4xf32, trn.sbuf>, !tirx.buffer<128x4x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @sum_rows
// CHECK:       nki.tensor_reduce %r, %x op add axes [2] : !tirx.buffer<128x4xf32{{.*}}>, !tirx.buffer<128x4x512xf32

// -----

tirx.kernel @two_stage() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.sum %v, %x config {max_inst_size = 512} : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @two_stage
// CHECK:       [[PART:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x4xf32, trn.sbuf, S[{{.*}}]>
// CHECK:       scf.for [[B:%.*]] = %{{.*}} to %{{.*}} step
// CHECK:         [[SLOT:%.*]] = tirx.slice [[PART]][0, [[B]]] [128, 1]
// CHECK:         nki.tensor_reduce [[SLOT]], %{{.*}} op add axes [1] keepdims : {{.*}}, !tirx.buffer<128x512xf32
// CHECK:       }
// CHECK-NEXT:  nki.tensor_reduce %v, [[PART]] op add axes [1] keepdims

// -----

tirx.kernel @accum() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.sum %v, %x accum : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @accum
// CHECK:       nki.tensor_reduce [[T:%.*]], %x op add
// CHECK-NEXT:  nki.tensor_tensor %v, %v, [[T]] op add
