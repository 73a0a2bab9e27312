// The SwiGLU gate of an MLP, then fp8 quantization: Y = silu(G) * U in bf16, and
// Q = fp8_e4m3(Y * 16) for the next matmul (scale 16 keeps small activations representable).
// Two CTAs of 128 threads, one 128-row tile each; the casts round to nearest even.
//
//   tirx-run examples/swiglu_fp8.mlir
tirx.kernel @swiglu_fp8(%G: !tirx.buffer<256x256xbf16, global>, %U: !tirx.buffer<256x256xbf16, global>)
    -> (%Y: !tirx.buffer<256x256xbf16, global>, %Q: !tirx.buffer<256x256xf8E4M3FN, global>)
    grid [2] threads [128] {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %qscale = arith.constant 16.0 : f32
  %g = tirx.slice %G[%row, 0] [128, 256] : !tirx.buffer<256x256xbf16, global> -> !tirx.buffer<128x256xbf16, global>
  %u = tirx.slice %U[%row, 0] [128, 256] : !tirx.buffer<256x256xbf16, global> -> !tirx.buffer<128x256xbf16, global>
  %y = tirx.slice %Y[%row, 0] [128, 256] : !tirx.buffer<256x256xbf16, global> -> !tirx.buffer<128x256xbf16, global>
  %q = tirx.slice %Q[%row, 0] [128, 256] : !tirx.buffer<256x256xf8E4M3FN, global> -> !tirx.buffer<128x256xf8E4M3FN, global>
  %sg = tirx.alloc : !tirx.buffer<128x256xbf16, shared>
  %su = tirx.alloc : !tirx.buffer<128x256xbf16, shared>
  %sq = tirx.alloc : !tirx.buffer<128x256xf32, shared>
  tirx.copy cta %sg, %g : !tirx.buffer<128x256xbf16, shared>, !tirx.buffer<128x256xbf16, global>
  tirx.copy cta %su, %u : !tirx.buffer<128x256xbf16, shared>, !tirx.buffer<128x256xbf16, global>
  tirx.silu cta %sg, %sg : !tirx.buffer<128x256xbf16, shared>, !tirx.buffer<128x256xbf16, shared>
  tirx.mul cta %sg, %sg, %su : !tirx.buffer<128x256xbf16, shared>, !tirx.buffer<128x256xbf16, shared>, !tirx.buffer<128x256xbf16, shared>
  tirx.copy cta %y, %sg : !tirx.buffer<128x256xbf16, global>, !tirx.buffer<128x256xbf16, shared>
  tirx.mul cta %sq, %sg, %qscale : !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x256xbf16, shared>, f32
  tirx.cast cta %q, %sq : !tirx.buffer<128x256xf8E4M3FN, global>, !tirx.buffer<128x256xf32, shared>
  tirx.return
}
