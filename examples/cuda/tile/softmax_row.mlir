// Row softmax of a 64x1024 f32 matrix in registers on sm_80, one row per CTA: Triton's fused
// softmax tutorial shape (one program per row of 1024, 4 warps). 64 CTAs of 128 threads; lane l
// of warp w holds columns 512r + 128w + 4l + e (r < 2, e < 4: two runs of 4, 16-byte loads),
// 8 registers. The row max and sum are xor butterflies over the lanes, then the 4 warps'
// partials meet in a small shared scratch after a barrier.
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/softmax_row.mlir -t ptx
tirx.kernel @softmax_row(%X: !tirx.buffer<64x1024xf32, global>)
    -> (%Y: !tirx.buffer<64x1024xf32, global>) grid [64] threads [128] target "cuda -arch=sm_80" {
  %row = tirx.cta_id x : index
  %xg = tirx.slice %X[%row, 0] [1, 1024] : !tirx.buffer<64x1024xf32, global> -> !tirx.buffer<1x1024xf32, global>
  %yg = tirx.slice %Y[%row, 0] [1, 1024] : !tirx.buffer<64x1024xf32, global> -> !tirx.buffer<1x1024xf32, global>
  %x = tirx.alloc : !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>
  %negmax = tirx.alloc : !tirx.buffer<1x1xf32, local>
  %sum = tirx.alloc : !tirx.buffer<1x1xf32, local>
  tirx.copy cta %x, %xg : !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>, !tirx.buffer<1x1024xf32, global>
  tirx.reduce_negate cta %negmax, %x reduce max : !tirx.buffer<1x1xf32, local>, !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>
  tirx.unary_reduce cta %x, %sum, %x bias %negmax unary exp reduce sum : !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>, !tirx.buffer<1x1xf32, local>, !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>, !tirx.buffer<1x1xf32, local>
  tirx.reciprocal cta %sum, %sum : !tirx.buffer<1x1xf32, local>, !tirx.buffer<1x1xf32, local>
  tirx.mul cta %x, %x, %sum : !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>, !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>, !tirx.buffer<1x1xf32, local>
  tirx.copy cta %yg, %x : !tirx.buffer<1x1024xf32, global>, !tirx.buffer<1x1024xf32, local, S[(2,4,32,4):(4,1@warpid,1@laneid,1)]>
  tirx.return
}
