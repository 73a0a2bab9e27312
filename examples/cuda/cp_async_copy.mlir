// A double-buffered global -> shared -> global copy with cp.async (LDGSTS on sm_80+). Each block
// copies 16 tiles of 1024 floats; each of its 256 threads moves 16 bytes of a tile. While the
// block drains stage k % 2, the copy of tile k + 1 into the other stage is in flight:
// cp.async.wait_group 1 waits for all but the newest group.
//   tirx-opt -t cuda examples/cuda/cp_async_copy.mlir
tirx.kernel @cp_async_copy(%In: !tirx.buffer<262144xf32, global>)
    -> (%Out: !tirx.buffer<262144xf32, global>) grid [16] threads [256]
    target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c16384 = arith.constant 16384 : index
  %stages = cuda.shared_alloc align 128 : !tirx.buffer<2x1024xf32, shared>
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %first = arith.muli %b, %c16384 : index
  %mine = arith.muli %t, %c4 : index
  %src0 = arith.addi %first, %mine : index
  %g0 = cuda.address %In, %src0 : !tirx.buffer<262144xf32, global>, index -> i64
  %s0 = cuda.address %stages, %mine : !tirx.buffer<2x1024xf32, shared>, index -> i32
  ptx.cp_async "cg.shared" [%s0], [%g0], 16 : (i32, i64) -> ()
  ptx.cp_async_commit_group
  scf.for %k = %c0 to %c16 step %c1 {
    %next = arith.addi %k, %c1 : index
    %more = arith.cmpi slt, %next, %c16 : index
    scf.if %more {
      %nstage = arith.remui %next, %c2 : index
      %noff = arith.muli %nstage, %c1024 : index
      %nidx = arith.addi %noff, %mine : index
      %ntile = arith.muli %next, %c1024 : index
      %nsrc0 = arith.addi %first, %ntile : index
      %nsrc = arith.addi %nsrc0, %mine : index
      %gn = cuda.address %In, %nsrc : !tirx.buffer<262144xf32, global>, index -> i64
      %sn = cuda.address %stages, %nidx : !tirx.buffer<2x1024xf32, shared>, index -> i32
      ptx.cp_async "cg.shared" [%sn], [%gn], 16 : (i32, i64) -> ()
    }
    ptx.cp_async_commit_group
    ptx.cp_async_wait_group 1
    cuda.sync_threads
    %stage = arith.remui %k, %c2 : index
    %off = arith.muli %stage, %c1024 : index
    %idx = arith.addi %off, %mine : index
    %sk = cuda.address %stages, %idx : !tirx.buffer<2x1024xf32, shared>, index -> i32
    %v:4 = ptx.ld "shared.v4.f32" [%sk] : (i32) -> (f32, f32, f32, f32)
    %tile = arith.muli %k, %c1024 : index
    %dst0 = arith.addi %first, %tile : index
    %dst = arith.addi %dst0, %mine : index
    %gd = cuda.address %Out, %dst : !tirx.buffer<262144xf32, global>, index -> i64
    ptx.st "global.v4.f32" [%gd], {%v#0, %v#1, %v#2, %v#3} : (i64, f32, f32, f32, f32) -> ()
    cuda.sync_threads
  }
  tirx.return
}
