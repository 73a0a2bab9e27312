// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.copy_async on trn: NKI DMAs are asynchronous already and ordered by their data, so it
// lowers like tirx.copy.

tirx.kernel @copy_async(%A: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy_async %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.return
}

// CHECK-LABEL: @copy_async
// CHECK-NOT:   tirx.copy_async
// CHECK:       nki.load %a, %A :
