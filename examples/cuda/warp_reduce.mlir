// A warp-shuffle sum: each block of 256 threads reduces its 256 inputs with a xor butterfly of
// __shfl_xor_sync (five steps, every lane ends with its warp's sum) and lane 0 of each warp
// adds the warp's sum to the output with one atomicAdd.
//   tirx-opt -t cuda examples/cuda/warp_reduce.mlir
tirx.kernel @warp_reduce(%X: !tirx.buffer<65536xf32, global>)
    -> (%Sum: !tirx.buffer<1xf32, global>) grid [256] threads [256] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %full = arith.constant -1 : i32
  %o16 = arith.constant 16 : i32
  %o8 = arith.constant 8 : i32
  %o4 = arith.constant 4 : i32
  %o2 = arith.constant 2 : i32
  %o1 = arith.constant 1 : i32
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %base = arith.muli %b, %c256 : index
  %i = arith.addi %base, %t : index
  %x = cuda.load %X, %i nc : !tirx.buffer<65536xf32, global>, index -> f32
  %y16 = cuda.shfl_sync xor %full, %x, %o16 : i32, f32, i32 -> f32
  %s16 = arith.addf %x, %y16 : f32
  %y8 = cuda.shfl_sync xor %full, %s16, %o8 : i32, f32, i32 -> f32
  %s8 = arith.addf %s16, %y8 : f32
  %y4 = cuda.shfl_sync xor %full, %s8, %o4 : i32, f32, i32 -> f32
  %s4 = arith.addf %s8, %y4 : f32
  %y2 = cuda.shfl_sync xor %full, %s4, %o2 : i32, f32, i32 -> f32
  %s2 = arith.addf %s4, %y2 : f32
  %y1 = cuda.shfl_sync xor %full, %s2, %o1 : i32, f32, i32 -> f32
  %s1 = arith.addf %s2, %y1 : f32
  %lane = cuda.lane_id : index
  %first = arith.cmpi eq, %lane, %c0 : index
  scf.if %first {
    %old = cuda.atomic add %Sum, %c0, %s1 : !tirx.buffer<1xf32, global>, index, f32 -> f32
  }
  tirx.return
}
