// RUN: tirx-opt %s --split-input-file -p cuda-split-roles | filecheck %s
// cuda-split-roles: a K loop tagged cuda.split_roles (a wgmma group in flight across its
// iterations) becomes one loop per role: `if consumer { their loop, the drain } else { the
// others' loop }`, the consumer's condition recomputed before it, their code unguarded in
// their loop; a tagged loop with other code at its top level is left whole, it and its roles untagged.

tirx.kernel @split(%Out: !tirx.buffer<256xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %t = cuda.thread_idx x : index
    %wg = arith.divui %t, %c128 : index
    %producer = arith.cmpi eq, %t, %c128 : index
    scf.if %producer {
      ptx.fence_proxy_async
    }
    %consumer = arith.cmpi ult, %wg, %c1 : index
    scf.if %consumer {
      ptx.wgmma_fence
      ptx.wgmma_commit_group
      ptx.wgmma_wait_group 1
    } {cuda.role = "consumer"}
  } {cuda.split_roles}
  %t2 = cuda.thread_idx x : index
  %wg2 = arith.divui %t2, %c128 : index
  %consumer2 = arith.cmpi ult, %wg2, %c1 : index
  scf.if %consumer2 {
    ptx.wgmma_wait_group 0
  } {cuda.role = "drain"}
  tirx.return
}

// CHECK-LABEL: tirx.kernel @split
// CHECK:       %{{.*}} = arith.cmpi ult
// the consumer's condition, cloned before the loop (after the drain's, moved there)
// CHECK:       %[[T:.*]] = cuda.thread_idx x : index
// CHECK-NEXT:  %[[WG:.*]] = arith.divui %[[T]], %{{.*}} : index
// CHECK-NEXT:  %[[C:.*]] = arith.cmpi ult, %[[WG]], %{{.*}} : index
// CHECK-NEXT:  scf.if %[[C]] {
// CHECK-NEXT:    scf.for
// CHECK-NOT:       scf.if
// CHECK-NOT:       ptx.fence_proxy_async
// CHECK:           ptx.wgmma_fence
// CHECK-NEXT:      ptx.wgmma_commit_group
// CHECK-NEXT:      ptx.wgmma_wait_group 1
// CHECK-NEXT:    }
// CHECK-NEXT:    ptx.wgmma_wait_group 0
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.for
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        ptx.fence_proxy_async
// CHECK-NEXT:      }
// CHECK-NOT:       wgmma
// CHECK:         }
// CHECK-NEXT:  }
// CHECK-NOT:   cuda.split_roles
// CHECK-NOT:   cuda.role
// CHECK:       tirx.return

// -----

tirx.kernel @kept(%Out: !tirx.buffer<256xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %t = cuda.thread_idx x : index
    %wg = arith.divui %t, %c128 : index
    cuda.sync_threads
    %consumer = arith.cmpi ult, %wg, %c1 : index
    scf.if %consumer {
      ptx.wgmma_wait_group 1
    } {cuda.role = "consumer"}
  } {cuda.split_roles}
  %t2 = cuda.thread_idx x : index
  %wg2 = arith.divui %t2, %c128 : index
  %consumer2 = arith.cmpi ult, %wg2, %c1 : index
  scf.if %consumer2 {
    ptx.wgmma_wait_group 0
  } {cuda.role = "drain"}
  tirx.return
}

// CHECK-LABEL: tirx.kernel @kept
// CHECK:       scf.for
// CHECK:         cuda.sync_threads
// CHECK:         scf.if
// CHECK-NEXT:      ptx.wgmma_wait_group 1
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   cuda.split_roles
// CHECK-NOT:   cuda.role
// CHECK:       ptx.wgmma_wait_group 0
// CHECK-NEXT:  }
// CHECK-NOT:   cuda.role
