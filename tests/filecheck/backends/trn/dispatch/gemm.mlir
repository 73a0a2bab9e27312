// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.gemm on trn: K tiled by 128 with accumulate_if (k > 0) (no memset), an SBUF result through
// its own PSUM tile and one eviction, a PSUM result written directly, beta = 1 on PSUM
// accumulates, and the moving/stationary swap when D holds N on partitions.

tirx.kernel @k_tiles() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<256x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.gemm %c, %a, %b transpose_a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<256x128xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @k_tiles
// CHECK-NOT:   tirx.gemm
// CHECK:       [[ACC:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum, S[{{.*}}]>
// CHECK:       scf.for [[K:%.*]] = %{{.*}} to %{{.*}} step
// CHECK:         [[NF:%.*]] = arith.cmpi ne, [[K]], %{{.*}} : index
// CHECK:         nki.matmul [[ACC]], %{{.*}}, %{{.*}} accumulate_if [[NF]] : !tirx.buffer<128x512xf32, trn.psum{{.*}}>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, i1
// CHECK:       }
// CHECK:       nki.tensor_copy %{{.*}}, [[ACC]]
// CHECK-NOT:   nki.memset

// -----

tirx.kernel @psum_direct() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<256x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>
  %p = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  tirx.gemm %p, %a, %b transpose_a : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<256x128xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>
  tirx.gemm %p, %a, %b transpose_a beta 1.0 : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<256x128xf32, trn.sbuf>, !tirx.buffer<256x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @psum_direct
// CHECK:       %p = tirx.alloc
// CHECK-NOT:   tirx.alloc
// CHECK:       nki.matmul %{{.*}} accumulate_if
// CHECK:       nki.matmul %{{.*}}, %{{.*}}, %{{.*}} accumulate :
// CHECK-NOT:   nki.tensor_copy

// -----

tirx.kernel @swap() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %d = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>
  tirx.gemm %d, %a, %b transpose_a : !tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @swap
// CHECK:       [[BT:%.*]] = tirx.transpose %b [1, 0]
// CHECK:       [[BR:%.*]] = tirx.reshape [[BT]]
// CHECK:       [[BS:%.*]] = tirx.transpose [[BR]] [2, 1, 0]
// CHECK-NEXT:  [[STAT:%.*]] = tirx.reshape [[BS]]
// CHECK:       nki.matmul %{{.*}}, [[STAT]], %{{.*}} :

// -----

// A stored [M, K] with the default layout holds K on its free axis: transpose_operands first
// transposes it (a copy through an identity matmul) into a scratch tile with K on partitions.
tirx.kernel @transpose_operands() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<64x256xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x256xf32, trn.sbuf>
  tirx.gemm %c, %a, %b : !tirx.buffer<128x256xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<64x256xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @transpose_operands
// CHECK:       [[AT:%[0-9]+]] = tirx.alloc : !tirx.buffer<64x128xf32, trn.sbuf, S[(64,128):(1@P,1@F)]>
// CHECK:       [[ID:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
// CHECK:       nki.identity [[ID]]
// CHECK:       nki.matmul [[TP:%[0-9]+]], %{{.*}}, [[ID]] :
// CHECK:       nki.tensor_copy [[AT]], [[TP]]
// CHECK:       nki.matmul
// CHECK-SAME:  !tirx.buffer<64x128xf32, trn.sbuf>, !tirx.buffer<64x256xf32, trn.sbuf>
