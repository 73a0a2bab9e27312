// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.copy on trn: HBM<->SBUF DMAs, on-chip tensor_copy bounded by max_inst_size, PSUM endpoints
// of a DMA staged through SBUF, and the transposing copy through TensorE.

tirx.kernel @load_store(%A: !tirx.buffer<128x512xf32, global>, %B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.copy %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @load_store
// CHECK:       nki.load %a, %A :
// CHECK-NEXT:  nki.store %B, %a :

// -----

tirx.kernel @tensor_copy_tiles() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %p = tirx.alloc : !tirx.buffer<128x2048xf32, trn.psum>
  tirx.copy %p, %a : !tirx.buffer<128x2048xf32, trn.psum>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @tensor_copy_tiles
// CHECK:       scf.for %b = %{{.*}} to %{{.*}} step
// CHECK:         [[D:%.*]] = tirx.slice %p[0, %{{.*}}] [128, 512]
// CHECK:         [[S:%.*]] = tirx.slice %a[0, %{{.*}}] [128, 512]
// CHECK-NEXT:    nki.tensor_copy [[D]], [[S]] :

// -----

tirx.kernel @psum_to_hbm(%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %p = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  tirx.copy %B, %p : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.return
}

// CHECK-LABEL: @psum_to_hbm
// CHECK:       [[T:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[{{.*}}]>
// CHECK:       nki.tensor_copy [[T]], %p
// CHECK-NEXT:  nki.store %B, [[T]]

// -----

tirx.kernel @transpose() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %t = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  tirx.copy %t, %x : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @transpose
// CHECK:       [[I:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>{{$}}
// CHECK:       nki.identity [[I]]
// CHECK:       [[ACC:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x128xf32, trn.psum, S[{{.*}}]>
// CHECK:       nki.matmul [[ACC]], %{{.*}}, [[I]] :
// CHECK:       nki.tensor_copy %{{.*}}, [[ACC]] :
