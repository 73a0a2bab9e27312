// BUG (on purpose): an array reverse through shared memory with the __syncthreads between the
// store and the load left out. Thread t stores In[t] to s[t] and loads s[63 - t], which thread
// 63 - t stored: with no barrier between them that is a read-after-write race. The SIMT
// interpreter's racecheck reports it at the load; putting `cuda.sync_threads` after the store
// fixes it.
//   tirx-run examples/cuda/bugs/missing_barrier_race.mlir            (the race report)
//   tirx-run examples/cuda/bugs/missing_barrier_race.mlir --no-racecheck
tirx.kernel @reverse(%In: !tirx.buffer<64xf32, global>)
    -> (%Out: !tirx.buffer<64xf32, global>) grid [1] threads [64]
    target "cuda -arch=sm_80" {
  %c63 = arith.constant 63 : index
  %s = cuda.shared_alloc : !tirx.buffer<64xf32, shared>
  %t = cuda.thread_idx x : index
  %v = cuda.load %In, %t : !tirx.buffer<64xf32, global>, index -> f32
  cuda.store %s, %t, %v : !tirx.buffer<64xf32, shared>, index, f32
  %r = arith.subi %c63, %t : index
  %w = cuda.load %s, %r : !tirx.buffer<64xf32, shared>, index -> f32
  cuda.store %Out, %t, %w : !tirx.buffer<64xf32, global>, index, f32
  tirx.return
}
