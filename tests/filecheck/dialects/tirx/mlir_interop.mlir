// REQUIRES: mlir-opt
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | tirx-opt | filecheck %s
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --verify-roundtrip -o /dev/null

// Our generic form is valid MLIR: upstream mlir-opt (unregistered dialects allowed) reads it,
// prints it back (properties sorted, values renumbered), and tirx-opt reads that again.

tirx.kernel @softmax(%X: !tirx.buffer<128x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [128] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x512xf32, global>
  tirx.reduce_negate warpgroup %m, %x reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.select %s, %s, %s where (d0, d1) : (d0 - 64 >= 0, d1 == 0) : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  %g = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  tirx.gemm %g, %g, %g transpose_a alpha 2.5 : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>
  %c0 = arith.constant 0 : index
  %v = tirx.slice %Y[%c0, 0] [128, 256] strides [1, 2] : !tirx.buffer<128x512xf32, global> -> !tirx.buffer<128x256xf32, global>
  %w = tirx.warp_id : index
  tirx.compose_op config {fuse = true} {
    tirx.zero %m : !tirx.buffer<128x1xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK:      tirx.kernel @softmax(%arg0: !tirx.buffer<128x512xf32, global>) -> (%arg1: !tirx.buffer<128x512xf32, global>) grid [1] threads [128] target "aws/trn1/trn1.2xlarge" {
// CHECK-NEXT: %0 = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
// CHECK-NEXT: %1 = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: %2 = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.copy %0, %arg0 : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x512xf32, global>
// CHECK-NEXT: tirx.reduce_negate warpgroup %1, %0 reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
// CHECK-NEXT: tirx.unary_reduce %0, %2, %0 bias %1 unary exp reduce sum : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.select %2, %2, %2 where (d0, d1) : (d0 - 64 >= 0, d1 == 0) : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: %3 = tirx.alloc : !tirx.buffer<64x64xf32, shared>
// CHECK-NEXT: tirx.gemm %3, %3, %3 transpose_a alpha 2.5 : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>
// CHECK-NEXT: %4 = arith.constant 0 : index
// CHECK-NEXT: %5 = tirx.slice %arg1[%4, 0] [128, 256] strides [1, 2] : !tirx.buffer<128x512xf32, global> -> !tirx.buffer<128x256xf32, global>
// CHECK-NEXT: %6 = tirx.warp_id : index
// CHECK-NEXT: tirx.compose_op config {fuse = true} {
// CHECK-NEXT: tirx.zero %1 : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: }
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }
