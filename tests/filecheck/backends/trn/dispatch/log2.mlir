// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.log2 on trn: activation log, then multiply by 1 / ln 2.

tirx.kernel @log2() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.log2 %a, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @log2
// CHECK:       nki.activation %a, %a func log :
// CHECK-NEXT:  nki.tensor_scalar %a, %a, %{{.*}} op0 multiply :
