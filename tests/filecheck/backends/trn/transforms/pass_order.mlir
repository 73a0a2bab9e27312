// RUN: tirx-opt %s --split-input-file --print-diagnostics -p tirx-dispatch | filecheck %s --check-prefix=DISPATCH
// RUN: tirx-opt %s --split-input-file --print-diagnostics -p trn-lower-layout | filecheck %s --check-prefix=LOWER
// RUN: tirx-opt %s --split-input-file --print-diagnostics -p trn-allocate | filecheck %s --check-prefix=ALLOC
// A trn pass run before the pass it needs fails at the first op that shows it, naming that pass.

tirx.kernel @tile_level(%X: !tirx.buffer<256x64xf32, global>) -> (%Y: !tirx.buffer<256x64xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x64xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<256x64xf32, trn.sbuf>, !tirx.buffer<256x64xf32, global>
  tirx.copy %Y, %x : !tirx.buffer<256x64xf32, global>, !tirx.buffer<256x64xf32, trn.sbuf>
  tirx.return
}

// DISPATCH: pass_order.mlir:7:3: error: {{.*}}[TRN-PASS-ORDER] buffer !tirx.buffer<256x64xf32, trn.sbuf> has no Trainium layout: run trn-default-layout before tirx-dispatch
// LOWER: pass_order.mlir:8:3: error: {{.*}}[TRN-PASS-ORDER] tirx.copy is a tile primitive, but trn-lower-layout works on nki instructions: run trn-default-layout and tirx-dispatch before trn-lower-layout
// ALLOC: pass_order.mlir:8:3: error: {{.*}}[TRN-PASS-ORDER] tirx.copy is a tile primitive, but trn-allocate works on nki instructions: run trn-default-layout and tirx-dispatch before trn-allocate

// -----

// Dispatched logical IR: trn-allocate needs the physical tiles of trn-lower-layout.
tirx.kernel @logical(%X: !tirx.buffer<256x64xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x64xf32, trn.sbuf, S[(2,128,64):(64@F,1@P,1@F)]>
  %z = arith.constant 0.0 : f32
  %v = tirx.slice %x[128, 0] [128, 64] : !tirx.buffer<256x64xf32, trn.sbuf, S[(2,128,64):(64@F,1@P,1@F)]> -> !tirx.buffer<128x64xf32, trn.sbuf>
  nki.memset %v, %z : !tirx.buffer<128x64xf32, trn.sbuf>, f32
  tirx.return
}

// ALLOC: pass_order.mlir:[[# @LINE - 7]]:3: error: {{.*}}buffer !tirx.buffer<256x64xf32, trn.sbuf, S[(2,128,64):(64@F,1@P,1@F)]> is not a physical [P, F] tile: run trn-lower-layout before trn-allocate
// DISPATCH: builtin.module
// DISPATCH: tirx.kernel @logical
// LOWER: %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
