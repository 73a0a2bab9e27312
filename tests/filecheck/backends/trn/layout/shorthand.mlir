// RUN: tirx-opt %s | filecheck %s
// RUN: tirx-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// TIRx's layout shorthands in trn.sbuf / trn.psum buffer types expand, for the buffer's shape,
// to the full layout the IR prints (docs/trn.md, Layouts).

tirx.kernel @k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, "PF">
  %b = tirx.alloc : !tirx.buffer<64x128xf32, trn.sbuf, "FP">
  %c = tirx.alloc : !tirx.buffer<4x128x64xf32, trn.sbuf, "FPF">
  %d = tirx.alloc : !tirx.buffer<512x256xf32, trn.sbuf, "FP">
  %e = tirx.alloc : !tirx.buffer<128x2048xf32, trn.psum, "PF">
  %f = tirx.alloc : !tirx.buffer<128x2048xbf16, trn.psum, "PF">
  tirx.return
}

// CHECK:      %a = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
// CHECK-NEXT: %b = tirx.alloc : !tirx.buffer<64x128xf32, trn.sbuf, S[(64,128):(1@F,1@P)]>
// CHECK-NEXT: %c = tirx.alloc : !tirx.buffer<4x128x64xf32, trn.sbuf, S[(4,128,64):(64@F,1@P,1@F)]>
// CHECK-NEXT: %d = tirx.alloc : !tirx.buffer<512x256xf32, trn.sbuf, S[(512,2,128):(2@F,1@F,1@P)]>
// CHECK-NEXT: %e = tirx.alloc : !tirx.buffer<128x2048xf32, trn.psum, S[(128,4,512):(1@P,1@Bank,1@F)]>
// CHECK-NEXT: %f = tirx.alloc : !tirx.buffer<128x2048xbf16, trn.psum, S[(128,2,1024):(1@P,1@Bank,1@F)]>

// GENERIC: %a = "tirx.alloc"() : () -> !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
// GENERIC-NOT: "PF"
