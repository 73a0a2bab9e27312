// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.permute_layout on trn: the same copy lowering; into a transposed layout it is the TensorE
// transpose.

tirx.kernel @permute() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %t = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  tirx.permute_layout %t, %x : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @permute
// CHECK-NOT:   tirx.permute_layout
// CHECK:       nki.identity
// CHECK:       nki.matmul
// CHECK:       nki.tensor_copy
