// A 2-D reduction at CTA scope on sm_80: the sum over both axes of a 128x256 f32 tile, to a
// scalar [1, 1]. The tile is held in registers (512 threads, 64 registers each); each thread
// folds its 64 elements, a shfl.sync butterfly sums each warp, the 16 warp partials meet in a
// small shared scratch after a barrier, and every thread ends with the total.
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/reduce_2d.mlir -t cuda
tirx.kernel @reduce_2d(%X: !tirx.buffer<128x256xf32, global>)
    -> (%S: !tirx.buffer<1x1xf32, global>) grid [1] threads [512] target "cuda -arch=sm_80" {
  %x = tirx.alloc : !tirx.buffer<128x256xf32, local>
  %s = tirx.alloc : !tirx.buffer<1x1xf32, local, S[1:1] + R[512:1@tx]>
  tirx.copy cta %x, %X : !tirx.buffer<128x256xf32, local>, !tirx.buffer<128x256xf32, global>
  tirx.sum cta %s, %x axes [0, 1] : !tirx.buffer<1x1xf32, local, S[1:1] + R[512:1@tx]>, !tirx.buffer<128x256xf32, local>
  tirx.copy cta %S, %s : !tirx.buffer<1x1xf32, global>, !tirx.buffer<1x1xf32, local, S[1:1] + R[512:1@tx]>
  tirx.return
}
