// RUN: tirx-run %s --stats | filecheck %s
// RUN: tirx-run %s --stats --no-racecheck | filecheck %s

// Two blocks of one warp: a row store (one wavefront), a column store and a column load (lanes
// 32 words apart: one bank, 32 wavefronts, 31 conflicts each), one barrier per block; the
// column (words 33, 65, ...) misses the row (words 0-31), so no race.
// CHECK:      %Out: [64] f32  min {{.*}}  nan 0
// CHECK-NEXT: instructions: 32 warp, 1024 thread (2 blocks in 1 wave)
// CHECK-NEXT: barriers per block: 1 (each of 2 blocks)
// CHECK-NEXT: shared memory: 6 requests, 130 wavefronts, 124 bank conflicts
// CHECK-NEXT: op location warp-instrs thread-instrs shared-reqs wavefronts conflicts barriers
// CHECK-NEXT: arith.constant {{.*}}tirx_run_stats.mlir:23:3 2 64 - - - -
// CHECK:      cuda.load {{.*}}tirx_run_stats.mlir:30:3 2 64 - - - -
// CHECK-NEXT: cuda.store {{.*}}tirx_run_stats.mlir:31:3 2 64 2 2 0 -
// CHECK:      cuda.store {{.*}}tirx_run_stats.mlir:34:3 2 64 2 64 62 -
// CHECK-NEXT: cuda.sync_threads {{.*}}tirx_run_stats.mlir:35:3 2 64 - - - 2
// CHECK-NEXT: cuda.load {{.*}}tirx_run_stats.mlir:36:3 2 64 2 64 62 -
// CHECK-NEXT: cuda.store {{.*}}tirx_run_stats.mlir:37:3 2 64 - - - -
// CHECK-NEXT: tirx.return {{.*}}tirx_run_stats.mlir:38:3 2 64 - - - -

tirx.kernel @columns(%In: !tirx.buffer<64xf32, global>) -> (%Out: !tirx.buffer<64xf32, global>)
    grid [2] threads [32] target "cuda -arch=sm_80" {
  %c33 = arith.constant 33 : index
  %c32 = arith.constant 32 : index
  %tile = cuda.shared_alloc : !tirx.buffer<2048xf32, shared>
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %i0 = arith.muli %b, %c32 : index
  %i = arith.addi %i0, %t : index
  %v = cuda.load %In, %i : !tirx.buffer<64xf32, global>, index -> f32
  cuda.store %tile, %t, %v : !tirx.buffer<2048xf32, shared>, index, f32
  %col0 = arith.muli %t, %c32 : index
  %col = arith.addi %col0, %c33 : index
  cuda.store %tile, %col, %v : !tirx.buffer<2048xf32, shared>, index, f32
  cuda.sync_threads
  %w = cuda.load %tile, %col : !tirx.buffer<2048xf32, shared>, index -> f32
  cuda.store %Out, %i, %w : !tirx.buffer<64xf32, global>, index, f32
  tirx.return
}
