// Elementwise with broadcast on sm_80: Y = silu(X + bias), X [256, 256] f32, bias [1, 256]
// broadcast over the rows. 8 CTAs of 128 threads, a 32-row tile each in shared memory; the add
// reads bias row 0 for every row, silu(x) = x / (1 + exp(-x)).
//
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/bias_silu.mlir -t cuda
tirx.kernel @bias_silu(%X: !tirx.buffer<256x256xf32, global>, %B: !tirx.buffer<1x256xf32, global>)
    -> (%Y: !tirx.buffer<256x256xf32, global>) grid [8] threads [128] target "cuda -arch=sm_80" {
  %cta = tirx.cta_id x : index
  %c32 = arith.constant 32 : index
  %row = arith.muli %cta, %c32 : index
  %x = tirx.slice %X[%row, 0] [32, 256] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<32x256xf32, global>
  %y = tirx.slice %Y[%row, 0] [32, 256] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<32x256xf32, global>
  %t = tirx.alloc : !tirx.buffer<32x256xf32, shared>
  %b = tirx.alloc : !tirx.buffer<1x256xf32, shared>
  tirx.copy cta %t, %x : !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x256xf32, global>
  tirx.copy cta %b, %B : !tirx.buffer<1x256xf32, shared>, !tirx.buffer<1x256xf32, global>
  tirx.add cta %t, %t, %b : !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x256xf32, shared>, !tirx.buffer<1x256xf32, shared>
  tirx.silu cta %t, %t : !tirx.buffer<32x256xf32, shared>, !tirx.buffer<32x256xf32, shared>
  tirx.copy cta %y, %t : !tirx.buffer<32x256xf32, global>, !tirx.buffer<32x256xf32, shared>
  tirx.return
}
