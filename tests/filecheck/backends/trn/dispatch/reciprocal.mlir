// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.reciprocal on trn (unary): VectorE reciprocal.

tirx.kernel @reciprocal() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.reciprocal %v, %v : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @reciprocal
// CHECK:       nki.reciprocal %v, %v :
