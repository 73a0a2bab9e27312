// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.reduce_negate on trn (default): tensor_reduce with negate; with accum the negated running
// value is folded with scalar_tensor_tensor.

tirx.kernel @negmax() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.reduce_negate %v, %x reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @negmax
// CHECK:       nki.tensor_reduce %v, %x op maximum axes [1] negate keepdims :

// -----

tirx.kernel @negmax_accum() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.reduce_negate %v, %x reduce max accum : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @negmax_accum
// CHECK:       nki.tensor_reduce [[T:%.*]], %x op maximum axes [1] keepdims
// CHECK-NEXT:  nki.scalar_tensor_tensor %v, [[T]], %{{.*}}, %v op0 multiply op1 minimum :
