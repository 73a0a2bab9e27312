// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// The completion of cp.async copies the program does not wait for (dispatch/async_completion.py):
// cp.async.wait_all + __syncthreads before the first tile op touching a destination written
// since the last commit or wait, followed into loop bodies and past branches, not into a
// sibling branch or around a loop's back edge.

// Written in an outer loop body, read in an inner one: the first reader waits, the second not.
tirx.kernel @nested(%X: !tirx.buffer<32xf32, global>) -> (%Y: !tirx.buffer<32xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tirx.alloc : !tirx.buffer<32xf32, shared>
  scf.for %i = %c0 to %c2 step %c1 {
    tirx.copy_async warp %a, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
    scf.for %j = %c0 to %c2 step %c1 {
      tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
      tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
    }
  }
  tirx.return
}

// CHECK-LABEL: @nested
// CHECK:       scf.for
// CHECK:         ptx.cp_async "cg.shared"
// CHECK:         scf.for
// CHECK-NEXT:      ptx.cp_async_wait_all
// CHECK-NEXT:      cuda.sync_threads
// CHECK-NOT:     ptx.cp_async_wait_all
// CHECK:       tirx.return

// -----

// A copy in the then branch: the else branch does not wait for it, the op after the if does.
tirx.kernel @branches(%X: !tirx.buffer<32xf32, global>) -> (%Y: !tirx.buffer<32xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %t = arith.constant true
  %a = tirx.alloc : !tirx.buffer<32xf32, shared>
  scf.if %t {
    tirx.copy_async warp %a, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
  } else {
    tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
  }
  tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @branches
// CHECK:       scf.if
// CHECK:         ptx.cp_async "cg.shared"
// CHECK:       } else {
// CHECK-NOT:     ptx.cp_async_wait_all
// CHECK:         cuda.sync_warp
// CHECK-NEXT:  }
// CHECK-NEXT:  ptx.cp_async_wait_all
// CHECK-NEXT:  cuda.sync_threads
// CHECK:       tirx.return

// -----

// Two buffers: a reader of the one not written waits for nothing; after one completion neither.
tirx.kernel @two_buffers(%X: !tirx.buffer<32xf32, global>) -> (%Y: !tirx.buffer<32xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32xf32, shared>
  tirx.copy_async warp %a, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
  tirx.copy warp %b, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
  tirx.copy_async warp %b, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
  tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
  tirx.copy warp %Y, %b : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @two_buffers
// CHECK:       ptx.cp_async "cg.shared"
// CHECK-NOT:   ptx.cp_async_wait_all
// CHECK:       ptx.st "shared.v4.f32"
// CHECK:       ptx.cp_async "cg.shared"
// CHECK-NEXT:  }
// CHECK-NEXT:  ptx.cp_async_wait_all
// CHECK-NEXT:  cuda.sync_threads
// CHECK-NOT:   ptx.cp_async_wait_all
// CHECK:       tirx.return

// -----

// The program commits and waits itself (in a loop before the reader): nothing is added.
tirx.kernel @program_waits(%X: !tirx.buffer<32xf32, global>) -> (%Y: !tirx.buffer<32xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tirx.alloc : !tirx.buffer<32xf32, shared>
  tirx.copy_async warp %a, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
  scf.for %i = %c0 to %c1 step %c1 {
    ptx.cp_async_commit_group
    ptx.cp_async_wait_group 0
  }
  tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @program_waits
// CHECK-NOT:   ptx.cp_async_wait_all
// CHECK:       tirx.return

// -----

// A reader at the top of a loop body does not wait for the copy later in the body (the next
// iteration's: such a program waits itself); the reader after the loop does.
tirx.kernel @back_edge(%X: !tirx.buffer<32xf32, global>) -> (%Y: !tirx.buffer<32xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tirx.alloc : !tirx.buffer<32xf32, shared>
  scf.for %i = %c0 to %c2 step %c1 {
    tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
    tirx.copy_async warp %a, %X : !tirx.buffer<32xf32, shared>, !tirx.buffer<32xf32, global>
  }
  tirx.copy warp %Y, %a : !tirx.buffer<32xf32, global>, !tirx.buffer<32xf32, shared>
  tirx.return
}

// CHECK-LABEL: @back_edge
// CHECK:       scf.for
// CHECK-NOT:     ptx.cp_async_wait_all
// CHECK:         ptx.cp_async "cg.shared"
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  ptx.cp_async_wait_all
// CHECK-NEXT:  cuda.sync_threads
// CHECK:       tirx.return
