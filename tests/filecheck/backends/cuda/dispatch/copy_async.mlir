// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// tirx.copy_async variant ldgsts: global -> shared as cp.async, the widest of 16/8/4 bytes both
// tiles keep contiguous (a swizzled tile keeps its 16-byte chunks), one per thread and round,
// a partial last round predicated; no commit, wait or barrier (the program waits).

tirx.kernel @swizzled() -> (%X: !tirx.buffer<64x64xf16, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared, swizzle(3,3,3) S[64,64]>
  tirx.copy_async cta %s, %X : !tirx.buffer<64x64xf16, shared, swizzle(3,3,3) S[64,64]>, !tirx.buffer<64x64xf16, global>
  tirx.return
}

// CHECK-LABEL: @swizzled
// CHECK-COUNT-4: ptx.cp_async "cg.shared" [{{.*}}], [{{.*}}], 16 : (i32, i64) -> ()
// CHECK-NOT:   ptx.cp_async
// CHECK-NOT:   cuda.sync_threads
// CHECK:       tirx.return

// -----

tirx.kernel @narrow() -> (%X: !tirx.buffer<32x2xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<32x2xf32, shared>
  tirx.copy_async warp %s, %X : !tirx.buffer<32x2xf32, shared>, !tirx.buffer<32x2xf32, global>
  tirx.return
}

// CHECK-LABEL: @narrow
// CHECK:       ptx.cp_async "ca.shared" [{{.*}}], [{{.*}}], 8
// CHECK-NOT:   ptx.cp_async

// -----

tirx.kernel @tail() -> (%X: !tirx.buffer<24x8xf16, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<24x8xf16, shared>
  tirx.copy_async warp %s, %X : !tirx.buffer<24x8xf16, shared>, !tirx.buffer<24x8xf16, global>
  tirx.return
}

// CHECK-LABEL: @tail
// CHECK:       %[[LIVE:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  scf.if %[[LIVE]] {
// CHECK:         ptx.cp_async "cg.shared" [{{.*}}], [{{.*}}], 16

// -----

// A predicate (rows below 40, columns up to 50 - 13 * %i): each chunk's src-size is the count
// of its leading elements the column bound keeps, 0 where the row bound fails. The program
// reads the tile without waiting: dispatch completes the copy first (wait_all, barrier).
tirx.kernel @predicated(%X: !tirx.buffer<64x64xf16, global>) -> (%Y: !tirx.buffer<64x64xf16, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %i = arith.constant 1 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %X where (d0, d1)[s0] : (50 - s0 * 13 - d1 >= 0, 39 - d0 >= 0) symbols [%i] : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>, index
  tirx.copy cta %Y, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// CHECK-LABEL: @predicated
// CHECK:       %[[LO:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK:       %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK:       %[[ROW:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK:       %[[CNT:.*]] = arith.select %[[ROW]], %[[HI]], %{{.*}} : index
// CHECK:       ptx.cp_async_zfill "cg.shared" [{{.*}}], [{{.*}}], 16, %{{.*}} : (i32, i64, i32) -> ()
// CHECK-COUNT-3: ptx.cp_async_zfill "cg.shared"
// CHECK-NOT:   ptx.cp_async_zfill
// CHECK:       ptx.cp_async_wait_all
// CHECK-NEXT:  cuda.sync_threads
// CHECK-NOT:   ptx.cp_async
// CHECK:       tirx.return

// -----

// config prefetch_size: every copy carries cp.async's L2 prefetch qualifier.
tirx.kernel @prefetch() -> (%X: !tirx.buffer<64x64xf16, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %X config {prefetch_size = 128} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}

// CHECK-LABEL: @prefetch
// CHECK-COUNT-4: ptx.cp_async "cg.shared.L2::128B" [{{.*}}], [{{.*}}], 16 : (i32, i64) -> ()
// CHECK-NOT:   ptx.cp_async

// -----

// config direct: a thread-scope copy of one 8-byte row is one cp.async, no thread partition.
tirx.kernel @direct(%X: !tirx.buffer<1x4xf16, global>) grid [1] threads [1]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<1x4xf16, shared>
  tirx.copy_async thread %s, %X config {direct = true} : !tirx.buffer<1x4xf16, shared>, !tirx.buffer<1x4xf16, global>
  tirx.return
}

// CHECK-LABEL: @direct
// CHECK-NOT:   cuda.thread_idx
// CHECK:       ptx.cp_async "ca.shared" [{{.*}}], [{{.*}}], 8 : (i32, i64) -> ()
// CHECK-NOT:   ptx.cp_async
