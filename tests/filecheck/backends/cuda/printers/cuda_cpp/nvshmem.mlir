// RUN: tirx-opt -t cuda %s | filecheck %s

// NVSHMEM device calls (bytes = elements * sizeof(T)); <nvshmem.h> is included only here.
tirx.kernel @shmem(%S: !tirx.buffer<1024xf32, global>, %Iv: !tirx.buffer<1xi32, global>)
    -> (%D: !tirx.buffer<1024xf32, global>, %Sig: !tirx.buffer<1xi64, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %n = arith.constant 1024 : index
  %v = arith.constant 1 : i64
  %w = arith.constant 1 : i32
  %me = nvshmem.my_pe : i32
  %np = nvshmem.n_pes : i32
  nvshmem.put %D, %S, %n, %me : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
  nvshmem.put %D, %S, %n, %np group warp nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
  nvshmem.get %D, %S, %n, %me group block : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
  nvshmem.put_signal set %D, %S, %n, %Sig, %v, %me nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32
  nvshmem.signal_op add %Sig, %v, %np : !tirx.buffer<1xi64, global>, i64, i32
  %seen = nvshmem.signal_wait_until ge %Sig, %v : !tirx.buffer<1xi64, global>, i64 -> i64
  nvshmem.wait_until eq %Iv, %w : !tirx.buffer<1xi32, global>, i32
  nvshmem.barrier_all group block
  nvshmem.sync_all
  nvshmem.quiet
  nvshmem.fence
  tirx.return
}

// CHECK:      #ifndef __CUDACC_RTC__
// CHECK-NEXT: #include <nvshmem.h>
// CHECK-NEXT: #include <nvshmemx.h>
// CHECK-NEXT: #endif
// CHECK:      const int me = nvshmem_my_pe();
// CHECK-NEXT: const int np = nvshmem_n_pes();
// CHECK-NEXT: nvshmem_putmem(D, S, (1024 * sizeof(float)), me);
// CHECK-NEXT: nvshmemx_putmem_nbi_warp(D, S, (1024 * sizeof(float)), np);
// CHECK-NEXT: nvshmemx_getmem_block(D, S, (1024 * sizeof(float)), me);
// CHECK-NEXT: nvshmem_putmem_signal_nbi(D, S, (1024 * sizeof(float)), reinterpret_cast<uint64_t*>(Sig), 1, NVSHMEM_SIGNAL_SET, me);
// CHECK-NEXT: nvshmemx_signal_op(reinterpret_cast<uint64_t*>(Sig), 1, NVSHMEM_SIGNAL_ADD, np);
// CHECK-NEXT: const long long seen = static_cast<long long>(nvshmem_signal_wait_until(reinterpret_cast<uint64_t*>(Sig), NVSHMEM_CMP_GE, 1));
// CHECK-NEXT: nvshmem_int_wait_until(reinterpret_cast<int*>(Iv), NVSHMEM_CMP_EQ, 1);
// CHECK-NEXT: nvshmemx_barrier_all_block();
// CHECK-NEXT: nvshmem_sync_all();
// CHECK-NEXT: nvshmem_quiet();
// CHECK-NEXT: nvshmem_fence();
