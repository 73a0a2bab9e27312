// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// Broadcast across partitions on trn: a [1, N] row in HBM copied to [P, N] is one DMA that reads
// the row once per partition; a row on chip is broadcast by a ones-vector matmul on TensorE
// (ones[1, P]^T @ row) into PSUM, once, and an elementwise op reads the broadcast tile.

tirx.kernel @row_from_hbm(%B: !tirx.buffer<1x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %b, %B : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.return
}

// CHECK-LABEL: @row_from_hbm
// CHECK:       nki.load %b, %B : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<1x512xf32, global>
// CHECK-NOT:   nki.

// -----

tirx.kernel @row_on_chip(%B: !tirx.buffer<1x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %r = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %r, %B : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.copy %b, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @row_on_chip
// CHECK:       %[[ONES:[0-9]+]] = tirx.alloc : !tirx.buffer<1x128xf32, trn.sbuf>
// CHECK:       nki.memset %[[ONES]], %{{.*}} : !tirx.buffer<1x128xf32, trn.sbuf>, f32
// CHECK:       nki.load %r, %B
// CHECK:       %[[ACC:[0-9]+]] = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum
// CHECK:       nki.matmul %[[ACC]], %{{.*}}, %{{.*}} : !tirx.buffer<128x512xf32, trn.psum, {{.*}}>, !tirx.buffer<1x128xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
// CHECK-NEXT:  nki.tensor_copy %b, %[[ACC]] :

// -----

tirx.kernel @bias_add(%B: !tirx.buffer<1x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.copy %r, %B : !tirx.buffer<1x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  tirx.add %x, %x, %r : !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
  tirx.return
}

// The row is broadcast once into a [128, 512] tile that both row tiles of %x read.
// CHECK-LABEL: @bias_add
// CHECK:       nki.matmul %[[ACC:[0-9]+]], %{{.*}}, %{{.*}} : !tirx.buffer<128x512xf32, trn.psum, {{.*}}>, !tirx.buffer<1x128xf32, trn.sbuf>, !tirx.buffer<1x512xf32, trn.sbuf>
// CHECK:       %[[TILE:[0-9]+]] = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf
// CHECK-NEXT:  nki.tensor_copy %[[TILE]], %[[ACC]] :
// CHECK:       scf.for
// CHECK-NOT:   nki.matmul
// CHECK:       nki.tensor_tensor %{{.*}}, %{{.*}}, %{{.*}} op add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf
// CHECK-NOT:   nki.

// -----

tirx.kernel @int_row_through_hbm(%B: !tirx.buffer<1x64xi32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %r = tirx.alloc : !tirx.buffer<1x64xi32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x64xi32, trn.sbuf>
  tirx.copy %r, %B : !tirx.buffer<1x64xi32, trn.sbuf>, !tirx.buffer<1x64xi32, global>
  tirx.copy %b, %r : !tirx.buffer<128x64xi32, trn.sbuf>, !tirx.buffer<1x64xi32, trn.sbuf>
  tirx.return
}

// TensorE does not multiply integers: the row goes out to an HBM scratch row and comes back
// by a broadcasting DMA.
// CHECK-LABEL: @int_row_through_hbm
// CHECK:       %[[S:[0-9]+]] = tirx.alloc : !tirx.buffer<1x64xi32, global>
// CHECK-NEXT:  nki.store %[[S]], %r :
// CHECK-NEXT:  nki.load %b, %[[S]] : !tirx.buffer<128x64xi32, trn.sbuf, S[(128,64):(1@P,1@F)]>, !tirx.buffer<1x64xi32, global>
