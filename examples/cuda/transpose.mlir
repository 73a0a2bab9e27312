// A 1024x1024 f32 transpose through shared memory, 32x32 tiles, 32x8 threads per block.
// The tile is padded to 33 columns, so the column reads of the second phase hit 32 different
// banks (a 32-column tile would put a whole column in one bank: a 32-way conflict).
//   tirx-opt -t cuda examples/cuda/transpose.mlir
tirx.kernel @transpose(%In: !tirx.buffer<1048576xf32, global>)
    -> (%Out: !tirx.buffer<1048576xf32, global>) grid [32, 32] threads [32, 8]
    target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c33 = arith.constant 33 : index
  %n = arith.constant 1024 : index
  %tile = cuda.shared_alloc : !tirx.buffer<32x33xf32, shared>
  %tx = cuda.thread_idx x : index
  %ty = cuda.thread_idx y : index
  %bx = cuda.block_idx x : index
  %by = cuda.block_idx y : index
  %col0 = arith.muli %bx, %c32 : index
  %row0 = arith.muli %by, %c32 : index
  scf.for %j = %c0 to %c32 step %c8 {
    %r = arith.addi %ty, %j : index
    %grow = arith.addi %row0, %r : index
    %gcol = arith.addi %col0, %tx : index
    %gi0 = arith.muli %grow, %n : index
    %gi = arith.addi %gi0, %gcol : index
    %v = cuda.load %In, %gi : !tirx.buffer<1048576xf32, global>, index -> f32
    %si0 = arith.muli %r, %c33 : index
    %si = arith.addi %si0, %tx : index
    cuda.store %tile, %si, %v : !tirx.buffer<32x33xf32, shared>, index, f32
  }
  cuda.sync_threads
  scf.for %j = %c0 to %c32 step %c8 {
    %r = arith.addi %ty, %j : index
    %si0 = arith.muli %tx, %c33 : index
    %si = arith.addi %si0, %r : index
    %v = cuda.load %tile, %si : !tirx.buffer<32x33xf32, shared>, index -> f32
    %orow = arith.addi %col0, %r : index
    %ocol = arith.addi %row0, %tx : index
    %oi0 = arith.muli %orow, %n : index
    %oi = arith.addi %oi0, %ocol : index
    cuda.store %Out, %oi, %v : !tirx.buffer<1048576xf32, global>, index, f32
  }
  tirx.return
}
