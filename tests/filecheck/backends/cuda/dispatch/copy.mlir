// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// tirx.copy on CUDA, variant vec_auto: 16-byte ld/st.v4 per thread and round, the thread part of
// the address computed once; a register destination keeps its values in the thread's array.

tirx.kernel @global_to_shared(%X: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x128xf32, shared>
  tirx.copy cta %t, %X : !tirx.buffer<64x128xf32, shared>, !tirx.buffer<64x128xf32, global>
  tirx.return
}

// The 16 rounds of a memory-to-memory copy are one loop body (dispatch/rounds.py): the round's
// 512 elements added to the thread's offset, one ld/st pair in the IR.
// CHECK-LABEL: @global_to_shared
// CHECK:       %t = tirx.alloc {cuda.align = 128 : i64} : !tirx.buffer<8192xf32, shared>
// CHECK-NOT:   cuda.sync_threads
// CHECK:       %[[TX:.*]] = cuda.thread_idx x : index
// CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:   %[[R1:.*]] = arith.constant 512 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[C16]] step %{{.*}} {
// CHECK:         %[[ROUND:.*]] = arith.muli %[[I]], %[[R1]] : index
// CHECK-NEXT:    %[[AT:.*]] = arith.addi %{{.*}}, %[[ROUND]] : index
// CHECK-NEXT:    %[[G:.*]] = cuda.address %X, %[[AT]]
// CHECK-NEXT:    ptx.ld "global.v4.f32" [%[[G]]]
// CHECK-NEXT:    %[[S:.*]] = cuda.address %t, %[[AT]]
// CHECK-NEXT:    ptx.st "shared.v4.f32" [%[[S]]]
// CHECK-NEXT:  } {cuda.unroll}
// CHECK-NOT:   ptx.ld
// CHECK:       cuda.sync_threads
// CHECK-NEXT:  tirx.return

// -----

// f16 between memories moves packed: 8 elements (16 bytes) per thread and round as 4 words of
// 32 bits, ld.global.v4.b32 into st.shared.v4.b32 (v4.b16 would stop at 8 bytes); the 64-byte
// swizzle keeps each 16-byte chunk whole. A swizzled tile's rounds stay unrolled (one swizzled
// offset plus immediates after cuda-peel-constants, dispatch/rounds.py).

tirx.kernel @f16_global_to_swizzled_shared(%X: !tirx.buffer<128x32xf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<128x32xf16, shared, swizzle(3,2,3) S[128,32]>
  tirx.copy cta %t, %X : !tirx.buffer<128x32xf16, shared, swizzle(3,2,3) S[128,32]>, !tirx.buffer<128x32xf16, global>
  tirx.return
}

// CHECK-LABEL: @f16_global_to_swizzled_shared
// CHECK:       %[[W0:.*]], %[[W1:.*]], %[[W2:.*]], %[[W3:.*]] = ptx.ld "global.v4.b32" [%{{.*}}] : (i64) -> (i32, i32, i32, i32)
// CHECK:       ptx.st "shared.v4.b32" [%{{.*}}], {%[[W0]], %[[W1]], %[[W2]], %[[W3]]} : (i32, i32, i32, i32, i32) -> ()
// CHECK-NOT:   scf.for
// CHECK-COUNT-3: ptx.st "shared.v4.b32"
// CHECK-NOT:   ptx.ld
// CHECK:       cuda.sync_threads
// CHECK-NEXT:  tirx.return

// -----

tirx.kernel @global_to_registers(%X: !tirx.buffer<64x128xf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x128xf16, local>
  tirx.copy cta %t, %X : !tirx.buffer<64x128xf16, local>, !tirx.buffer<64x128xf16, global>
  tirx.return
}

// A register destination rolls too: one loop over the 16 rounds, the thread's array indexed by
// 4 x the induction variable (+ 0..3); the PTX printer expands it (printers/ptx/unroll.py).
// CHECK-LABEL: @global_to_registers
// CHECK:       %[[R:.*]] = tirx.alloc : !tirx.buffer<64xf16, local>
// CHECK:       %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:       %[[N:.*]] = arith.constant 16 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[N]] step
// CHECK:         ptx.ld "global.v4.b16" [%{{.*}}] : (i64) -> (f16, f16, f16, f16)
// CHECK-NEXT:    %[[B:.*]] = arith.muli %[[I]], %[[FOUR]] : index
// CHECK-NEXT:    cuda.store %[[R]], %[[B]], %{{.*}} : !tirx.buffer<64xf16, local>, index, f16
// CHECK-COUNT-3: cuda.store %[[R]]
// CHECK-NEXT:  } {cuda.unroll}
// CHECK-NOT:   cuda.sync_threads
// CHECK:       tirx.return

// -----

tirx.kernel @odd_shape(%X: !tirx.buffer<3x5xf32, global>) grid [1] threads [64] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<3x5xf32, shared>
  tirx.copy cta %t, %X : !tirx.buffer<3x5xf32, shared>, !tirx.buffer<3x5xf32, global>
  tirx.return
}

// 15 elements over 64 threads: 15 threads take one element each, the others write nothing.
// CHECK-LABEL: @odd_shape
// CHECK:       %[[TX:.*]] = cuda.thread_idx x : index
// CHECK:       %[[C15:.*]] = arith.constant 15 : index
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[TX]], %[[C15]] : index
// CHECK:       scf.if %[[IN]] {
// CHECK:         cuda.load %X
// CHECK:         cuda.store %t
