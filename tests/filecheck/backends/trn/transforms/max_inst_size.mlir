// RUN: tirx-opt %s -p 'trn-max-inst-size{max_inst_size=256},trn-default-layout,tirx-dispatch' | filecheck %s
// trn-max-inst-size gives every tile op without its own config a default max_inst_size (the trn
// pipeline's option); an op's own config wins.

tirx.kernel @sizes() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x1024xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x1024xf32, trn.sbuf>
  tirx.add %a, %a, %b : !tirx.buffer<128x1024xf32, trn.sbuf>, !tirx.buffer<128x1024xf32, trn.sbuf>, !tirx.buffer<128x1024xf32, trn.sbuf>
  tirx.mul %a, %a, %b config {max_inst_size = 1024} : !tirx.buffer<128x1024xf32, trn.sbuf>, !tirx.buffer<128x1024xf32, trn.sbuf>, !tirx.buffer<128x1024xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @sizes
// CHECK:       scf.for
// CHECK:         nki.tensor_tensor {{.*}} op add : !tirx.buffer<128x256xf32, trn.sbuf>
// CHECK:       }
// CHECK-NEXT:  nki.tensor_tensor %a, %a, %b op multiply : !tirx.buffer<128x1024xf32
