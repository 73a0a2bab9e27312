// BUG (on purpose): the same array reverse, but its __syncthreads sits inside `if (t < 32)`, so
// only the first warp reaches it: a divergent barrier, which hangs or is undefined on a GPU. The
// SIMT interpreter reports it as an error naming the threads that did not arrive.
//   tirx-run examples/cuda/bugs/divergent_syncthreads.mlir
tirx.kernel @reverse(%In: !tirx.buffer<64xf32, global>)
    -> (%Out: !tirx.buffer<64xf32, global>) grid [1] threads [64]
    target "cuda -arch=sm_80" {
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %s = cuda.shared_alloc : !tirx.buffer<64xf32, shared>
  %t = cuda.thread_idx x : index
  %v = cuda.load %In, %t : !tirx.buffer<64xf32, global>, index -> f32
  cuda.store %s, %t, %v : !tirx.buffer<64xf32, shared>, index, f32
  %low = arith.cmpi ult, %t, %c32 : index
  scf.if %low {
    cuda.sync_threads
  }
  %r = arith.subi %c63, %t : index
  %w = cuda.load %s, %r : !tirx.buffer<64xf32, shared>, index -> f32
  cuda.store %Out, %t, %w : !tirx.buffer<64xf32, global>, index, f32
  tirx.return
}
