// Row softmax of a 512x256 f32 matrix in registers on sm_80. 16 CTAs of 128 threads, 32 rows
// each: warp w holds rows 8w..8w+7, each lane 8 of a row's 256 elements (two runs of 4, read
// with 16-byte loads), 64 registers. The row max and the row sum are xor butterflies over the
// lanes (shfl.sync.bfly): no shared memory, no barrier; cuda-default-layout gives %negmax and
// %sum the rows of their warp in every lane, so the broadcasts read them in place.
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/softmax_registers.mlir -t ptx
tirx.kernel @softmax_registers(%X: !tirx.buffer<512x256xf32, global>)
    -> (%Y: !tirx.buffer<512x256xf32, global>) grid [16] threads [128] target "cuda -arch=sm_80" {
  %cta = tirx.cta_id x : index
  %c32 = arith.constant 32 : index
  %row = arith.muli %cta, %c32 : index
  %xg = tirx.slice %X[%row, 0] [32, 256] : !tirx.buffer<512x256xf32, global> -> !tirx.buffer<32x256xf32, global>
  %yg = tirx.slice %Y[%row, 0] [32, 256] : !tirx.buffer<512x256xf32, global> -> !tirx.buffer<32x256xf32, global>
  %x = tirx.alloc : !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>
  %negmax = tirx.alloc : !tirx.buffer<32x1xf32, local>
  %sum = tirx.alloc : !tirx.buffer<32x1xf32, local>
  tirx.copy cta %x, %xg : !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>, !tirx.buffer<32x256xf32, global>
  tirx.reduce_negate cta %negmax, %x reduce max : !tirx.buffer<32x1xf32, local>, !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>
  tirx.unary_reduce cta %x, %sum, %x bias %negmax unary exp reduce sum : !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>, !tirx.buffer<32x1xf32, local>, !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>, !tirx.buffer<32x1xf32, local>
  tirx.reciprocal cta %sum, %sum : !tirx.buffer<32x1xf32, local>, !tirx.buffer<32x1xf32, local>
  tirx.mul cta %x, %x, %sum : !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>, !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>, !tirx.buffer<32x1xf32, local>
  tirx.copy cta %yg, %x : !tirx.buffer<32x256xf32, global>, !tirx.buffer<32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>
  tirx.return
}
