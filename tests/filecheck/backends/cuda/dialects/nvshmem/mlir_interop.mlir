// REQUIRES: mlir-opt
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --verify-roundtrip -o /dev/null
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | tirx-opt | filecheck %s

// nvshmem-level IR is valid MLIR: upstream mlir-opt reads the generic form of every nvshmem op,
// and what it prints back parses and verifies as the same ops.

tirx.kernel @all() grid [4] threads [256] cluster [2] target "cuda -arch=sm_90a" {
  %g, %l, %s, %sig, %iv, %n, %pe, %v, %w = "test.op"() : () -> (!tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, !tirx.buffer<1xi64, global>, !tirx.buffer<1xi32, global>, index, i32, i64, i32)
  %me = nvshmem.my_pe : i32
  %np = nvshmem.n_pes : i32
  nvshmem.put %g, %l, %n, %pe group warp nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
  nvshmem.get %s, %g, %n, %pe : !tirx.buffer<1024xf32, shared>, !tirx.buffer<1024xf32, global>, index, i32
  nvshmem.put_signal add %g, %s, %n, %sig, %v, %pe group block : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, index, !tirx.buffer<1xi64, global>, i64, i32
  nvshmem.signal_op set %sig, %v, %pe : !tirx.buffer<1xi64, global>, i64, i32
  %seen = nvshmem.signal_wait_until ge %sig, %v : !tirx.buffer<1xi64, global>, i64 -> i64
  nvshmem.wait_until eq %iv, %w : !tirx.buffer<1xi32, global>, i32
  nvshmem.barrier_all group block
  nvshmem.sync_all
  nvshmem.quiet
  nvshmem.fence
  %me_k = nvshmem.my_pe : i32
  %np_k = nvshmem.n_pes : i32
  nvshmem.put_signal set %g, %l, %n, %sig, %v, %pe group block nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32
  %seen_k = nvshmem.signal_wait_until eq %sig, %v : !tirx.buffer<1xi64, global>, i64 -> i64
  nvshmem.quiet
  tirx.return
}

// CHECK: %{{[0-9]+}} = nvshmem.my_pe : i32
// CHECK-NEXT: %{{[0-9]+}} = nvshmem.n_pes : i32
// CHECK-NEXT: nvshmem.put %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} group warp nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
// CHECK-NEXT: nvshmem.get %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<1024xf32, shared>, !tirx.buffer<1024xf32, global>, index, i32
// CHECK-NEXT: nvshmem.put_signal add %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} group block : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, index, !tirx.buffer<1xi64, global>, i64, i32
// CHECK-NEXT: nvshmem.signal_op set %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<1xi64, global>, i64, i32
// CHECK-NEXT: %{{[0-9]+}} = nvshmem.signal_wait_until ge %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<1xi64, global>, i64 -> i64
// CHECK-NEXT: nvshmem.wait_until eq %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<1xi32, global>, i32
// CHECK-NEXT: nvshmem.barrier_all group block
// CHECK-NEXT: nvshmem.sync_all
// CHECK-NEXT: nvshmem.quiet
// CHECK-NEXT: nvshmem.fence
// CHECK-NEXT: %{{[0-9]+}} = nvshmem.my_pe : i32
// CHECK-NEXT: %{{[0-9]+}} = nvshmem.n_pes : i32
// CHECK-NEXT: nvshmem.put_signal set %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} group block nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32
// CHECK-NEXT: %{{[0-9]+}} = nvshmem.signal_wait_until eq %{{[0-9]+}}, %{{[0-9]+}} : !tirx.buffer<1xi64, global>, i64 -> i64
// CHECK-NEXT: nvshmem.quiet
