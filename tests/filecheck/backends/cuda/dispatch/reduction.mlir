// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,canonicalize,cse | filecheck %s
// The CUDA reductions. local (10): a register tile by its own layout; shared (10): a synthesized spread (lanes along the row), each thread's
// elements folded, a xor butterfly of shfl.sync over the reduced lane bits, one writer per row;
// warps holding parts of the same rows meet in a shared scratch after a barrier. max/min fold
// with arith.maximumf / minimumf (NaN-propagating); reduce_negate with accum keeps
// -max(-old, max(src)).

tirx.kernel @row_max() grid [1] threads [64] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<2x64xf32, shared>
  %m = tirx.alloc : !tirx.buffer<2x1xf32, shared>
  tirx.max cta %m, %t : !tirx.buffer<2x1xf32, shared>, !tirx.buffer<2x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @row_max
// CHECK:       %[[TX:.*]] = cuda.thread_idx x : index
// CHECK:       cuda.load %{{.*}} : !tirx.buffer<2x64xf32, shared>, index -> f32
// CHECK:       cuda.load %{{.*}} : !tirx.buffer<2x64xf32, shared>, index -> f32
// CHECK:       arith.maximumf
// CHECK:       cuda.shfl_sync xor %{{.*}}, %{{.*}}, %{{.*}} : i32, f32, i32 -> f32
// CHECK-COUNT-4: cuda.shfl_sync xor
// CHECK-NOT:   cuda.shfl_sync
// CHECK:       %[[LOW:.*]] = arith.andi %[[TX]], %{{.*}} : index
// CHECK:       %[[W:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : index
// CHECK:       scf.if %[[W]] {
// CHECK-NEXT:    cuda.store %{{.*}} : !tirx.buffer<2x1xf32, shared>, index, f32
// CHECK:       cuda.sync_threads

// -----

// 16 rows over 2 warps: each warp reduces 8 rows, one loop iteration per row (its two loads,
// the butterfly, the row's writer), not 8 copies of it (dispatch/rounds.py).
tirx.kernel @rows_in_a_loop() grid [1] threads [64] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<16x64xf32, shared>
  %m = tirx.alloc : !tirx.buffer<16x1xf32, shared>
  tirx.sum cta %m, %t : !tirx.buffer<16x1xf32, shared>, !tirx.buffer<16x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @rows_in_a_loop
// CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[C8]] step %{{.*}} {
// CHECK:         arith.muli %[[I]], %[[C128]] : index
// CHECK-COUNT-2: cuda.load %t
// CHECK-COUNT-5: cuda.shfl_sync xor
// CHECK:         scf.if
// CHECK-NEXT:      arith.muli %[[I]]
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      cuda.store %m
// CHECK:       } {cuda.unroll}
// CHECK-NOT:   cuda.shfl_sync
// CHECK:       cuda.sync_threads

// -----

// Every bit reduced (a 2-D sum to a scalar): the warps' partials go through a private scratch.
tirx.kernel @sum_2d() grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<16x32xf32, shared>
  %s = tirx.alloc : !tirx.buffer<1x1xf32, shared>
  tirx.sum cta %s, %t axes [0, 1] : !tirx.buffer<1x1xf32, shared>, !tirx.buffer<16x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @sum_2d
// CHECK:       %[[SCRATCH:.*]] = tirx.alloc : !tirx.buffer<4xf32, shared>
// CHECK-COUNT-5: cuda.shfl_sync xor
// CHECK:       scf.if
// CHECK-NEXT:    cuda.store %[[SCRATCH]]
// CHECK:       cuda.sync_threads
// CHECK:       scf.if
// CHECK-COUNT-3: cuda.load %[[SCRATCH]]
// CHECK:       cuda.store %{{.*}} : !tirx.buffer<1x1xf32, shared>, index, f32

// -----

tirx.kernel @negated_running_max() grid [1] threads [32] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<4x32xf32, shared>
  %m = tirx.alloc : !tirx.buffer<4xf32, shared>
  tirx.reduce_negate cta %m, %t accum reduce max : !tirx.buffer<4xf32, shared>, !tirx.buffer<4x32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @negated_running_max
// CHECK:       scf.if
// CHECK:         %[[OLD:.*]] = cuda.load %{{.*}} : !tirx.buffer<4xf32, shared>, index -> f32
// CHECK-NEXT:    %[[NOLD:.*]] = arith.negf %[[OLD]] : f32
// CHECK-NEXT:    %[[FOLD:.*]] = arith.maximumf %[[NOLD]], %{{.*}} : f32
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[FOLD]] : f32
// CHECK-NEXT:    cuda.store %{{.*}}, %{{.*}}, %[[NEG]] : !tirx.buffer<4xf32, shared>, index, f32

// -----

// local (10): lanes along the rows of a register tile, a warp per 8 rows. cuda-default-layout
// gives the destination the source's rows in the same threads (replicated over the lanes), so
// after the butterfly every lane writes its 8 row sums to its own registers: no shared memory,
// no barrier.
tirx.kernel @register_rows() grid [1] threads [128] target "cuda -arch=sm_80" {
  %x = tirx.alloc : !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>
  %s = tirx.alloc : !tirx.buffer<32x1xf32, local>
  tirx.sum cta %s, %x : !tirx.buffer<32x1xf32, local>, !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>
  tirx.return
}

// CHECK-LABEL: @register_rows
// CHECK-DAG:   %[[OUT:.*]] = tirx.alloc : !tirx.buffer<8xf32, local>
// CHECK-DAG:   %[[IN:.*]] = tirx.alloc : !tirx.buffer<64xf32, local>
// The 8 rows are one loop (register indices 8 x the induction variable + 0..7 in, the
// induction variable out; the PTX printer expands it, printers/ptx/unroll.py).
// CHECK-NOT:   tirx.alloc
// CHECK:       scf.for %[[ROW:.*]] = %{{.*}} to %[[EIGHT:.*]] step
// CHECK-NEXT:    %[[FIRST:.*]] = arith.muli %[[ROW]], %[[EIGHT]] : index
// CHECK-NEXT:    cuda.load %[[IN]], %[[FIRST]] : !tirx.buffer<64xf32, local>, index -> f32
// CHECK-COUNT-7: arith.addf
// CHECK-COUNT-5: cuda.shfl_sync xor
// CHECK-NOT:   cuda.sync_threads
// CHECK:         cuda.store %[[OUT]], %[[ROW]], %{{.*}} : !tirx.buffer<8xf32, local>, index, f32
// CHECK-NEXT:  } {cuda.unroll}
// CHECK-NOT:   cuda.sync_threads
// CHECK:       tirx.return
