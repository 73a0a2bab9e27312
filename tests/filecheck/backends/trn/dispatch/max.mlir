// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.max on trn (reduction): tensor_reduce maximum, also over a middle axis (moved last).

tirx.kernel @max_middle() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.max %r, %x axes [1] : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x4x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @max_middle
// CHECK:       nki.tensor_reduce %{{.*}}, %{{.*}} op maximum axes [2] : !tirx.buffer<128x512xf32, trn.sbuf{{.*}}>, !tirx.buffer<128x512x4xf32, trn.sbuf>
