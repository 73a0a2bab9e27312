// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.min on trn (reduction): tensor_reduce minimum.

tirx.kernel @min() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.min %v, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @min
// CHECK:       nki.tensor_reduce %v, %x op minimum axes [1] keepdims :
