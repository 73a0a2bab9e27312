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
