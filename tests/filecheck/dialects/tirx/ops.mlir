// RUN: TIRX_ROUNDTRIP
// RUN: TIRX_GENERIC_ROUNDTRIP

// Every tirx op and type in custom form: printing then reparsing gives the text back, and
// the generic form round-trips too (CHECK-GENERIC).

tirx.kernel @empty() grid [1] threads [1] {
  tirx.return
}

// CHECK-LABEL: tirx.kernel @empty() grid [1] threads [1] {
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      "tirx.kernel"() <{sym_name = "empty", num_inputs = 0 : i64, grid = array<i64: 1>, threads = array<i64: 1>}> ({
// CHECK-GENERIC-NEXT:   "tirx.return"() : () -> ()

// -----

tirx.kernel @params(%A: !tirx.buffer<128x512xf32, global>, %s: !tirx.buffer<4xi32, global>) -> (%B: !tirx.buffer<128x512xbf16, global>) grid [4, 2] threads [128] cluster [2, 1] target "cuda -arch=sm_90a" attributes {tag = "k"} {
  tirx.return
}

// CHECK-LABEL: tirx.kernel @params(%A: !tirx.buffer<128x512xf32, global>, %s: !tirx.buffer<4xi32, global>) -> (%B: !tirx.buffer<128x512xbf16, global>) grid [4, 2] threads [128] cluster [2, 1] target "cuda -arch=sm_90a" attributes {tag = "k"} {
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      "tirx.kernel"() <{sym_name = "params", num_inputs = 2 : i64, grid = array<i64: 4, 2>, threads = array<i64: 128>, cluster = array<i64: 2, 1>, target = #tirx.target<"cuda -arch=sm_90a">}> ({
// CHECK-GENERIC-NEXT: ^bb0(%A: !tirx.buffer<128x512xf32, global>, %s: !tirx.buffer<4xi32, global>, %B: !tirx.buffer<128x512xbf16, global>):
// CHECK-GENERIC:      }) {tag = "k"} : () -> ()

// -----

tirx.kernel @ids() grid [8, 4, 2] threads [256] cluster [2, 2] {
  %0 = tirx.cluster_id x : index
  %1 = tirx.cta_id : index
  %2 = tirx.cta_id y : index
  %3 = tirx.cta_id z : index
  %4 = tirx.cta_id_in_cluster y : index
  %5 = tirx.cta_id_in_pair : index
  %6 = tirx.warpgroup_id : index
  %7 = tirx.warp_id : index
  %8 = tirx.warp_id_in_wg : index
  %9 = tirx.lane_id : index
  %10 = tirx.thread_id x : index
  %11 = tirx.thread_id_in_wg : index
  tirx.return
}

// CHECK-LABEL: tirx.kernel @ids() grid [8, 4, 2] threads [256] cluster [2, 2] {
// CHECK-NEXT: %0 = tirx.cluster_id x : index
// CHECK-NEXT: %1 = tirx.cta_id : index
// CHECK-NEXT: %2 = tirx.cta_id y : index
// CHECK-NEXT: %3 = tirx.cta_id z : index
// CHECK-NEXT: %4 = tirx.cta_id_in_cluster y : index
// CHECK-NEXT: %5 = tirx.cta_id_in_pair : index
// CHECK-NEXT: %6 = tirx.warpgroup_id : index
// CHECK-NEXT: %7 = tirx.warp_id : index
// CHECK-NEXT: %8 = tirx.warp_id_in_wg : index
// CHECK-NEXT: %9 = tirx.lane_id : index
// CHECK-NEXT: %10 = tirx.thread_id x : index
// CHECK-NEXT: %11 = tirx.thread_id_in_wg : index
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      %0 = "tirx.cluster_id"() <{dim = 0 : i64}> : () -> index
// CHECK-GENERIC-NEXT: %1 = "tirx.cta_id"() : () -> index
// CHECK-GENERIC-NEXT: %2 = "tirx.cta_id"() <{dim = 1 : i64}> : () -> index

// -----

tirx.kernel @buffers(%A: !tirx.buffer<1024x512xf32, global>) grid [1] threads [1] {
  %i = arith.constant 128 : index
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.slice %A[%i, 0] [128, 512] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  %w = tirx.slice %A[0, 1] [64, 128] strides [2, 4] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<64x128xf32, global>
  %g = tirx.slice %A[%i, 0] [%i, 512] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  %t = tirx.transpose %w [1, 0] : !tirx.buffer<64x128xf32, global> -> !tirx.buffer<128x64xf32, global>
  %r = tirx.reshape %b : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x2x256xf32, trn.sbuf>
  %x = tirx.load %b[%i, %i] : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.store %x, %b[%i, %i] : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @buffers(%A: !tirx.buffer<1024x512xf32, global>) grid [1] threads [1] {
// CHECK-NEXT: %i = arith.constant 128 : index
// CHECK-NEXT: %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
// CHECK-NEXT: %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: %v = tirx.slice %A[%i, 0] [128, 512] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<128x512xf32, global>
// CHECK-NEXT: %w = tirx.slice %A[0, 1] [64, 128] strides [2, 4] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<64x128xf32, global>
// CHECK-NEXT: %g = tirx.slice %A[%i, 0] [%i, 512] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<128x512xf32, global>
// CHECK-NEXT: %t = tirx.transpose %w [1, 0] : !tirx.buffer<64x128xf32, global> -> !tirx.buffer<128x64xf32, global>
// CHECK-NEXT: %r = tirx.reshape %b : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x2x256xf32, trn.sbuf>
// CHECK-NEXT: %x = tirx.load %b[%i, %i] : !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: tirx.store %x, %b[%i, %i] : !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      %v = "tirx.slice"(%A, %i) <{static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 128, 512>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tirx.buffer<1024x512xf32, global>, index) -> !tirx.buffer<128x512xf32, global>
// CHECK-GENERIC-NEXT: %w = "tirx.slice"(%A) <{static_offsets = array<i64: 0, 1>, static_sizes = array<i64: 64, 128>, static_strides = array<i64: 2, 4>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tirx.buffer<1024x512xf32, global>) -> !tirx.buffer<64x128xf32, global>
// CHECK-GENERIC-NEXT: %g = "tirx.slice"(%A, %i, %i) <{static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: -9223372036854775808, 512>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!tirx.buffer<1024x512xf32, global>, index, index) -> !tirx.buffer<128x512xf32, global>
// CHECK-GENERIC-NEXT: %t = "tirx.transpose"(%w) <{permutation = array<i64: 1, 0>}> : (!tirx.buffer<64x128xf32, global>) -> !tirx.buffer<128x64xf32, global>
// CHECK-GENERIC-NEXT: %r = "tirx.reshape"(%b) : (!tirx.buffer<128x512xf32, trn.sbuf>) -> !tirx.buffer<128x2x256xf32, trn.sbuf>
// CHECK-GENERIC-NEXT: %x = "tirx.load"(%b, %i, %i) : (!tirx.buffer<128x512xf32, trn.sbuf>, index, index) -> f32
// CHECK-GENERIC-NEXT: "tirx.store"(%x, %b, %i, %i) : (f32, !tirx.buffer<128x512xf32, trn.sbuf>, index, index) -> ()

// -----

"test.op"() {l0 = #tirx.layout<S[128,512]>, l1 = #tirx.layout<S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid>, l2 = #tirx.layout<swizzle(3,3,3) S[8,64]>, s = #tirx<exec_scope warpgroup>, t = #tirx.target<"aws/trn1/trn1.2xlarge">} : () -> ()
%0 = "test.op"() : () -> !tirx.buffer<16xf16, shared>
%1 = "test.op"() : () -> !tirx.buffer<16x16xbf16, shared.dyn>
%2 = "test.op"() : () -> !tirx.buffer<2x4xf8E4M3FN, local>
%3 = "test.op"() : () -> !tirx.buffer<128x16xui8, tmem>
%4 = "test.op"() : () -> !tirx.buffer<128x2048xf32, trn.psum>
%5 = "test.op"() : () -> !tirx.buffer<8xi1, global>
%6 = "test.op"() : () -> !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>

// CHECK:      "test.op"() {l0 = #tirx.layout<S[128,512]>, l1 = #tirx.layout<S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid>, l2 = #tirx.layout<swizzle(3,3,3) S[8,64]>, s = #tirx<exec_scope warpgroup>, t = #tirx.target<"aws/trn1/trn1.2xlarge">} : () -> ()
// CHECK-NEXT: %0 = "test.op"() : () -> !tirx.buffer<16xf16, shared>
// CHECK-NEXT: %1 = "test.op"() : () -> !tirx.buffer<16x16xbf16, shared.dyn>
// CHECK-NEXT: %2 = "test.op"() : () -> !tirx.buffer<2x4xf8E4M3FN, local>
// CHECK-NEXT: %3 = "test.op"() : () -> !tirx.buffer<128x16xui8, tmem>
// CHECK-NEXT: %4 = "test.op"() : () -> !tirx.buffer<128x2048xf32, trn.psum>
// CHECK-NEXT: %5 = "test.op"() : () -> !tirx.buffer<8xi1, global>
// CHECK-NEXT: %6 = "test.op"() : () -> !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>

// CHECK-GENERIC: "test.op"() {l0 = #tirx.layout<S[128,512]>, l1 = #tirx.layout<S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid>, l2 = #tirx.layout<swizzle(3,3,3) S[8,64]>, s = #tirx<exec_scope warpgroup>, t = #tirx.target<"aws/trn1/trn1.2xlarge">} : () -> ()
// CHECK-GENERIC: %6 = "test.op"() : () -> !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>

// -----

tirx.kernel @moves(%G: !tirx.buffer<32x32xf32, global>) grid [1] threads [128] {
  %s = tirx.alloc : !tirx.buffer<32x32xf32, shared>
  %h = tirx.alloc : !tirx.buffer<32x32xf16, shared>
  %p = tirx.alloc : !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>
  tirx.copy cta %s, %G : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>
  tirx.copy_async %s, %G dispatch "tma_auto" : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>
  tirx.permute_layout warp %p, %s : !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>, !tirx.buffer<32x32xf32, shared>
  tirx.cast warpgroup %h, %s config {vec = 4 : i64} : !tirx.buffer<32x32xf16, shared>, !tirx.buffer<32x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @moves(%G: !tirx.buffer<32x32xf32, global>) grid [1] threads [128] {
// CHECK-NEXT: %s = tirx.alloc : !tirx.buffer<32x32xf32, shared>
// CHECK-NEXT: %h = tirx.alloc : !tirx.buffer<32x32xf16, shared>
// CHECK-NEXT: %p = tirx.alloc : !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>
// CHECK-NEXT: tirx.copy cta %s, %G : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>
// CHECK-NEXT: tirx.copy_async %s, %G dispatch "tma_auto" : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>
// CHECK-NEXT: tirx.permute_layout warp %p, %s : !tirx.buffer<32x32xf32, shared, swizzle(3,3,3) S[32,32]>, !tirx.buffer<32x32xf32, shared>
// CHECK-NEXT: tirx.cast warpgroup %h, %s config {vec = 4 : i64} : !tirx.buffer<32x32xf16, shared>, !tirx.buffer<32x32xf32, shared>
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      "tirx.copy"(%s, %G) <{scope = #tirx<exec_scope cta>}> : (!tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>) -> ()
// CHECK-GENERIC-NEXT: "tirx.copy_async"(%s, %G) <{scope = #tirx<exec_scope thread>, dispatch = "tma_auto", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>) -> ()
// CHECK-GENERIC-NEXT: "tirx.permute_layout"(%p, %s) <{scope = #tirx<exec_scope warp>}>
// CHECK-GENERIC-NEXT: "tirx.cast"(%h, %s) <{scope = #tirx<exec_scope warpgroup>, config = {vec = 4 : i64}}>

// -----

tirx.kernel @matmul(%A: !tirx.buffer<64x32xf16, global>, %B: !tirx.buffer<64x32xf16, global>) -> (%D: !tirx.buffer<64x64xf32, global>) grid [1] threads [1] {
  %C = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %sa = tirx.alloc : !tirx.buffer<64x1xf32, shared>
  %sb = tirx.alloc : !tirx.buffer<64x1xf32, shared>
  tirx.gemm %D, %A, %B c %C transpose_b alpha 0.5 beta 1.0 : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x64xf32, shared>
  tirx.gemm %C, %A, %B transpose_b : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x32xf16, global>
  tirx.gemm_async %C, %A, %B sfa %sa sfb %sb accum : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x1xf32, shared>, !tirx.buffer<64x1xf32, shared>
  tirx.return
}

// CHECK-LABEL: tirx.kernel @matmul(%A: !tirx.buffer<64x32xf16, global>, %B: !tirx.buffer<64x32xf16, global>) -> (%D: !tirx.buffer<64x64xf32, global>) grid [1] threads [1] {
// CHECK-NEXT: %C = tirx.alloc : !tirx.buffer<64x64xf32, shared>
// CHECK-NEXT: %sa = tirx.alloc : !tirx.buffer<64x1xf32, shared>
// CHECK-NEXT: %sb = tirx.alloc : !tirx.buffer<64x1xf32, shared>
// CHECK-NEXT: tirx.gemm %D, %A, %B c %C transpose_b alpha 0.5 beta 1.0 : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x64xf32, shared>
// CHECK-NEXT: tirx.gemm %C, %A, %B transpose_b : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x32xf16, global>
// CHECK-NEXT: tirx.gemm_async %C, %A, %B sfa %sa sfb %sb accum : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x32xf16, global>, !tirx.buffer<64x1xf32, shared>, !tirx.buffer<64x1xf32, shared>
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      "tirx.gemm"(%D, %A, %B, %C) <{scope = #tirx<exec_scope thread>, transpose_b, alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}>
// CHECK-GENERIC-NEXT: "tirx.gemm"(%C, %A, %B) <{scope = #tirx<exec_scope thread>, transpose_b, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}>
// CHECK-GENERIC-NEXT: "tirx.gemm_async"(%C, %A, %B, %sa, %sb) <{scope = #tirx<exec_scope thread>, accum, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}>

// -----

tirx.kernel @elementwise(%X: !tirx.buffer<128x64xf32, global>) grid [1] threads [1] {
  %c = arith.constant 2.000000e+00 : f32
  %z = arith.constant 0 : i32
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %n = tirx.alloc : !tirx.buffer<128x64xi32, trn.sbuf>
  tirx.zero %y : !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.fill %y, %c : !tirx.buffer<128x64xf32, trn.sbuf>, f32
  tirx.memset %n, %z : !tirx.buffer<128x64xi32, trn.sbuf>, i32
  tirx.reciprocal %y, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.silu %y, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.sqrt %y, %x scale %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
  tirx.exp %y, %x bias %b scale %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
  tirx.exp2 %y, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.log2 %y, %x bias %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.add %y, %x, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.sub %y, %c, %x : !tirx.buffer<128x64xf32, trn.sbuf>, f32, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.mul %y, %x, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.fdiv %y, %x, %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
  tirx.maximum %y, %x, %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
  tirx.minimum %y, %x, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.fma %y, %x, %c, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.select %y, %x, %c where (d0, d1) : (d1 - d0 - 1 >= 0) : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
  %i = tirx.cta_id x : index
  tirx.select %y, %x, %c where (d0, d1)[s0] : (999 - d0 - s0 * 128 >= 0) symbols [%i] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, index
  tirx.return
}

// CHECK-LABEL: tirx.kernel @elementwise(%X: !tirx.buffer<128x64xf32, global>) grid [1] threads [1] {
// CHECK-NEXT: %c = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %z = arith.constant 0 : i32
// CHECK-NEXT: %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: %y = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: %b = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: %n = tirx.alloc : !tirx.buffer<128x64xi32, trn.sbuf>
// CHECK-NEXT: tirx.zero %y : !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.fill %y, %c : !tirx.buffer<128x64xf32, trn.sbuf>, f32
// CHECK-NEXT: tirx.memset %n, %z : !tirx.buffer<128x64xi32, trn.sbuf>, i32
// CHECK-NEXT: tirx.reciprocal %y, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.silu %y, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.sqrt %y, %x scale %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
// CHECK-NEXT: tirx.exp %y, %x bias %b scale %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
// CHECK-NEXT: tirx.exp2 %y, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.log2 %y, %x bias %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.add %y, %x, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.sub %y, %c, %x : !tirx.buffer<128x64xf32, trn.sbuf>, f32, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.mul %y, %x, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.fdiv %y, %x, %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
// CHECK-NEXT: tirx.maximum %y, %x, %c : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
// CHECK-NEXT: tirx.minimum %y, %x, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.fma %y, %x, %c, %b : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.select %y, %x, %c where (d0, d1) : (d1 - d0 - 1 >= 0) : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
// CHECK-NEXT: %i = tirx.cta_id x : index
// CHECK-NEXT: tirx.select %y, %x, %c where (d0, d1)[s0] : (-d0 - 128 * s0 + 999 >= 0) symbols [%i] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, index
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      "tirx.exp"(%y, %x, %b, %c) <{scope = #tirx<exec_scope thread>, operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
// CHECK-GENERIC:      "tirx.log2"(%y, %x, %b) <{scope = #tirx<exec_scope thread>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
// CHECK-GENERIC:      "tirx.select"(%y, %x, %c) <{scope = #tirx<exec_scope thread>, where = affine_set<(d0, d1) : (((d1 + (d0 * -1)) + -1) >= 0)>}>
// CHECK-GENERIC:      "tirx.select"(%y, %x, %c, %i) <{scope = #tirx<exec_scope thread>, where = affine_set<(d0, d1)[s0] :

// -----

tirx.kernel @reductions(%X: !tirx.buffer<128x64xf32, global>) grid [1] threads [1] {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %e = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<64xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.sum %r, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.max %r, %x axes [-1] accum : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.min %c, %x axes [0] : !tirx.buffer<64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.reduce_negate %m, %x reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.binary_reduce %e, %r, %x, %x binary mul reduce sum : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.unary_reduce %e, %r, %x bias %m unary exp reduce sum axes [1] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.binary_chain %e, %x, %m, %r op0 sub op1 mul reverse1 : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.compose_op {
    tirx.exp %e, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.sum %r, %e : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK-LABEL: tirx.kernel @reductions(%X: !tirx.buffer<128x64xf32, global>) grid [1] threads [1] {
// CHECK-NEXT: %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: %e = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: %r = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: %c = tirx.alloc : !tirx.buffer<64xf32, trn.sbuf>
// CHECK-NEXT: %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.sum %r, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.max %r, %x axes [-1] accum : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.min %c, %x axes [0] : !tirx.buffer<64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.reduce_negate %m, %x reduce max : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.binary_reduce %e, %r, %x, %x binary mul reduce sum : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.unary_reduce %e, %r, %x bias %m unary exp reduce sum axes [1] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.binary_chain %e, %x, %m, %r op0 sub op1 mul reverse1 : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK-NEXT: tirx.compose_op {
// CHECK-NEXT: tirx.exp %e, %x : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: tirx.sum %r, %e : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
// CHECK-NEXT: }
// CHECK-NEXT: tirx.return
// CHECK-NEXT: }

// CHECK-GENERIC:      "tirx.max"(%r, %x) <{scope = #tirx<exec_scope thread>, axes = array<i64: -1>, accum}>
// CHECK-GENERIC:      "tirx.reduce_negate"(%m, %x) <{scope = #tirx<exec_scope thread>, reduce = "max"}>
// CHECK-GENERIC:      "tirx.unary_reduce"(%e, %r, %x, %m) <{scope = #tirx<exec_scope thread>, unary = "exp", reduce = "sum", axes = array<i64: 1>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}>
// CHECK-GENERIC-NEXT: "tirx.binary_chain"(%e, %x, %m, %r) <{scope = #tirx<exec_scope thread>, op0 = "sub", op1 = "mul", reverse1}>
// CHECK-GENERIC-NEXT: "tirx.compose_op"() <{scope = #tirx<exec_scope thread>}> ({
// CHECK-GENERIC-NEXT:   "tirx.exp"(%e, %x)

