// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.cast on trn: tensor_copy converts on chip, a DMA converts on its way to HBM.

tirx.kernel @cast_on_chip() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %h = tirx.alloc : !tirx.buffer<128x512xbf16, trn.sbuf>
  tirx.cast %h, %a : !tirx.buffer<128x512xbf16, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @cast_on_chip
// CHECK-NOT:   tirx.cast
// CHECK:       nki.tensor_copy %h, %a : !tirx.buffer<128x512xbf16

// -----

tirx.kernel @cast_store(%B: !tirx.buffer<128x512xbf16, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.cast %B, %a : !tirx.buffer<128x512xbf16, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @cast_store
// CHECK:       nki.store %B, %a : !tirx.buffer<128x512xbf16, global>
