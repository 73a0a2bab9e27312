// RUN: tirx-opt %s --split-input-file --print-diagnostics -p trn-default-layout,trn-lower-layout | filecheck %s
// trn-lower-layout bounds offsets built with % and // by constants (as TVM's arith analyzer
// bounds floormod/floordiv): (%i % 2) * 128 stays in [0, 128], (%i // 2) * 128 picks a
// partition tile of a 256-row buffer.

tirx.kernel @remainder_offset() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f32
  %x = tirx.alloc : !tirx.buffer<128x256xf32, trn.sbuf>
  scf.for %i = %c0 to %c4 step %c1 {
    %m = arith.remsi %i, %c2 : index
    %off = arith.muli %m, %c128 : index
    %v = tirx.slice %x[%c0, %off] [128, 128] : !tirx.buffer<128x256xf32, trn.sbuf> -> !tirx.buffer<128x128xf32, trn.sbuf>
    nki.memset %v, %z : !tirx.buffer<128x128xf32, trn.sbuf>, f32
  }
  tirx.return
}

// CHECK-LABEL: @remainder_offset
// CHECK:       %m = arith.remsi %i, %c2 : index
// CHECK:       [[OFF:%[0-9]+]] = arith.muli %m, %{{[0-9]+}} : index
// CHECK:       [[V:%.*]] = tirx.slice %x[0, [[OFF]]] [128, 128] : !tirx.buffer<128x256xf32, trn.sbuf> -> !tirx.buffer<128x128xf32, trn.sbuf>
// CHECK:       nki.memset [[V]], %z

// -----

tirx.kernel @quotient_row_tile() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f32
  %x = tirx.alloc : !tirx.buffer<256x64xf32, trn.sbuf, S[(2,128,64):(64@F,1@P,1@F)]>
  scf.for %i = %c0 to %c4 step %c1 {
    %q = arith.floordivsi %i, %c2 : index
    %row = arith.muli %q, %c128 : index
    %v = tirx.slice %x[%row, %c0] [128, 64] : !tirx.buffer<256x64xf32, trn.sbuf, S[(2,128,64):(64@F,1@P,1@F)]> -> !tirx.buffer<128x64xf32, trn.sbuf>
    nki.memset %v, %z : !tirx.buffer<128x64xf32, trn.sbuf>, f32
  }
  tirx.return
}

// CHECK-LABEL: @quotient_row_tile
// CHECK:       %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
// CHECK:       %q = arith.floordivsi %i, %c2 : index
// CHECK:       [[OFF:%[0-9]+]] = arith.muli %q, %{{[0-9]+}} : index
// CHECK:       [[V:%.*]] = tirx.slice %x[0, [[OFF]]] [128, 64] : !tirx.buffer<128x128xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK:       nki.memset [[V]], %z

// -----

// A remainder that can reach 2: (%i % 3) * 128 of a 256-wide tile would cross its end.
tirx.kernel @remainder_too_large() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %x = tirx.alloc : !tirx.buffer<2x128x128xf32, trn.sbuf, S[(2,128,128):(128@F,1@P,1@F)]>
  scf.for %i = %c0 to %c4 step %c1 {
    %m = arith.remsi %i, %c3 : index
    %v = tirx.slice %x[%m, %c0, %c0] [1, 128, 128] : !tirx.buffer<2x128x128xf32, trn.sbuf, S[(2,128,128):(128@F,1@P,1@F)]> -> !tirx.buffer<1x128x128xf32, trn.sbuf>
    nki.memset %v, %z : !tirx.buffer<1x128x128xf32, trn.sbuf>, f32
  }
  tirx.return
}

// CHECK: error: {{.*}}offset term {{.*}} %m (up to {{.*}}) crosses a layout tile boundary (extent 2)
