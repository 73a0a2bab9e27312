// RUN: tirx-opt %s --split-input-file -p cuda-set-max-nreg | filecheck %s
// cuda-set-max-nreg: the role split of cuda-split-roles (an scf.if tagged cuda.role_split:
// consumer warpgroups, else the producer's) gets setmaxnreg.inc in the consumers' branch and
// .dec in the producer's, the consumers' register set-up and the code after the split moved
// into their branch, and the kernel its registers at launch (cuda.max_registers); a kernel the
// numbers or the code do not allow is left as it is, untagged.

// 256 threads, a 32-register consumer array (estimate 64 per thread), no shared memory:
// 5 CTAs per SM with 48 registers at launch, producer 24, consumer 2 * 48 - 24 = 72
// (4 CTAs if every thread held 64)
tirx.kernel @rebalanced(%Out: !tirx.buffer<256x32xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %acc = tirx.alloc : !tirx.buffer<32xf32, local>
  %phase = tirx.alloc : !tirx.buffer<1xi32, local>
  %z = arith.constant 0 : i32
  cuda.store %phase, %c0, %z : !tirx.buffer<1xi32, local>, index, i32
  scf.for %i = %c0 to %c32 step %c1 {
    cuda.store %acc, %i, %zero : !tirx.buffer<32xf32, local>, index, f32
  }
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi ult, %wg, %c1 : index
  scf.if %consumer {
    %v = cuda.load %acc, %c0 : !tirx.buffer<32xf32, local>, index -> f32
    cuda.store %acc, %c1, %v : !tirx.buffer<32xf32, local>, index, f32
  } else {
    %p = cuda.load %phase, %c0 : !tirx.buffer<1xi32, local>, index -> i32
    cuda.store %phase, %c0, %p : !tirx.buffer<1xi32, local>, index, i32
  } {cuda.role_split}
  %c32i = arith.constant 32 : index
  %warp = arith.divui %t, %c32i : index
  %mine = arith.cmpi ult, %warp, %c4 : index
  scf.if %mine {
    %w = cuda.load %acc, %c1 : !tirx.buffer<32xf32, local>, index -> f32
    cuda.store %Out, %t, %w : !tirx.buffer<256x32xf32, global>, index, f32
  }
  tirx.return
}

// CHECK-LABEL: tirx.kernel @rebalanced
// CHECK-SAME:    attributes {cuda.max_registers = 48 : i64}
// CHECK:         cuda.store %phase, %c0, %z
// CHECK-NOT:     cuda.role_split
// CHECK:         scf.if %consumer {
// CHECK-NEXT:      ptx.setmaxnreg "inc" 72
// CHECK-NEXT:      scf.for %i = %c0 to %c32 step %c1 {
// CHECK-NEXT:        cuda.store %acc, %i, %zero
// CHECK-NEXT:      }
// CHECK-NEXT:      %v = cuda.load %acc, %c0
// CHECK-NEXT:      cuda.store %acc, %c1, %v
// CHECK-NEXT:      %c32i = arith.constant 32 : index
// CHECK:           scf.if %mine {
// CHECK:             cuda.store %Out, %t, %w
// CHECK:         } else {
// CHECK-NEXT:      ptx.setmaxnreg "dec" 24
// CHECK-NEXT:      %p = cuda.load %phase, %c0
// CHECK:         }
// CHECK-NEXT:    tirx.return

// -----

// a barrier after the split: the producer must reach it, so nothing moves
tirx.kernel @barrier_after(%Out: !tirx.buffer<256xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi ult, %wg, %c1 : index
  scf.if %consumer {
    ptx.wgmma_fence
  } else {
    ptx.fence_proxy_async
  } {cuda.role_split}
  cuda.sync_threads
  tirx.return
}

// CHECK-LABEL: tirx.kernel @barrier_after
// CHECK-NOT:     cuda.max_registers
// CHECK-NOT:     ptx.setmaxnreg
// CHECK-NOT:     cuda.role_split
// CHECK:         cuda.sync_threads

// -----

// roles that split a warpgroup (threads 0-63 against 64-255): setmaxnreg is per warpgroup
tirx.kernel @half_warpgroup(%Out: !tirx.buffer<256xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c64 = arith.constant 64 : index
  %t = cuda.thread_idx x : index
  %consumer = arith.cmpi ult, %t, %c64 : index
  scf.if %consumer {
    ptx.wgmma_fence
  } else {
    ptx.fence_proxy_async
  } {cuda.role_split}
  tirx.return
}

// CHECK-LABEL: tirx.kernel @half_warpgroup
// CHECK-NOT:     ptx.setmaxnreg
// CHECK-NOT:     cuda.role_split
// CHECK:         tirx.return

// -----

// sm_90 (not sm_90a) has no setmaxnreg
tirx.kernel @plain_sm90(%Out: !tirx.buffer<256xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90" {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi ult, %wg, %c1 : index
  scf.if %consumer {
    ptx.fence_proxy_async
  } else {
    ptx.fence_proxy_async
  } {cuda.role_split}
  tirx.return
}

// CHECK-LABEL: tirx.kernel @plain_sm90
// CHECK-NOT:     ptx.setmaxnreg
// CHECK-NOT:     cuda.role_split
// CHECK:         tirx.return

// -----

// code after the split that the producer runs (the else of a condition false in its threads):
// it stays after the split, so nothing moves
tirx.kernel @else_after(%Out: !tirx.buffer<256x32xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %acc = tirx.alloc : !tirx.buffer<32xf32, local>
  %phase = tirx.alloc : !tirx.buffer<1xi32, local>
  %z = arith.constant 0 : i32
  cuda.store %phase, %c0, %z : !tirx.buffer<1xi32, local>, index, i32
  scf.for %i = %c0 to %c32 step %c1 {
    cuda.store %acc, %i, %zero : !tirx.buffer<32xf32, local>, index, f32
  }
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi ult, %wg, %c1 : index
  scf.if %consumer {
    %v = cuda.load %acc, %c0 : !tirx.buffer<32xf32, local>, index -> f32
    cuda.store %acc, %c1, %v : !tirx.buffer<32xf32, local>, index, f32
  } else {
    %p = cuda.load %phase, %c0 : !tirx.buffer<1xi32, local>, index -> i32
    cuda.store %phase, %c0, %p : !tirx.buffer<1xi32, local>, index, i32
  } {cuda.role_split}
  %c32i = arith.constant 32 : index
  %warp = arith.divui %t, %c32i : index
  %mine = arith.cmpi ult, %warp, %c4 : index
  scf.if %mine {
    %w = cuda.load %acc, %c1 : !tirx.buffer<32xf32, local>, index -> f32
    cuda.store %Out, %t, %w : !tirx.buffer<256x32xf32, global>, index, f32
  } else {
    cuda.store %Out, %t, %zero : !tirx.buffer<256x32xf32, global>, index, f32
  }
  tirx.return
}

// CHECK-LABEL: tirx.kernel @else_after
// CHECK-NOT:     ptx.setmaxnreg
// CHECK-NOT:     cuda.role_split
// CHECK:         scf.if %mine {
// CHECK:         } else {
// CHECK-NEXT:      cuda.store %Out, %t, %zero
// CHECK:         tirx.return

// -----

// the same through an i1 compare with `true` (stored as -1 by xDSL): true in the producer's
// threads, so nothing moves
tirx.kernel @i1_true_after(%Out: !tirx.buffer<256x32xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %acc = tirx.alloc : !tirx.buffer<32xf32, local>
  %phase = tirx.alloc : !tirx.buffer<1xi32, local>
  %z = arith.constant 0 : i32
  cuda.store %phase, %c0, %z : !tirx.buffer<1xi32, local>, index, i32
  scf.for %i = %c0 to %c32 step %c1 {
    cuda.store %acc, %i, %zero : !tirx.buffer<32xf32, local>, index, f32
  }
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi ult, %wg, %c1 : index
  scf.if %consumer {
    %v = cuda.load %acc, %c0 : !tirx.buffer<32xf32, local>, index -> f32
    cuda.store %acc, %c1, %v : !tirx.buffer<32xf32, local>, index, f32
  } else {
    %p = cuda.load %phase, %c0 : !tirx.buffer<1xi32, local>, index -> i32
    cuda.store %phase, %c0, %p : !tirx.buffer<1xi32, local>, index, i32
  } {cuda.role_split}
  %c32i = arith.constant 32 : index
  %warp = arith.divui %t, %c32i : index
  %mine = arith.cmpi ult, %warp, %c4 : index
  %true = arith.constant true
  %producer = arith.cmpi uge, %t, %c128 : index
  %theirs = arith.cmpi eq, %producer, %true : i1
  scf.if %theirs {
    cuda.store %Out, %t, %zero : !tirx.buffer<256x32xf32, global>, index, f32
  }
  tirx.return
}

// CHECK-LABEL: tirx.kernel @i1_true_after
// CHECK-NOT:     ptx.setmaxnreg
// CHECK-NOT:     cuda.role_split
// CHECK:         scf.if %theirs {
// CHECK-NEXT:      cuda.store %Out, %t, %zero
// CHECK:         tirx.return
