// A bf16 linear layer, Y = X @ W^T + b, with W stored [N, K] as nn.Linear keeps it (K-major, the
// layout tensor-core MMAs read B in): X is 128x256, W is 256x256, b is 1x256, Y is 128x256 bf16.
// Two CTAs of 128 threads each own 128 output columns. The K loop issues gemm_async with
// `accum` into an f32 register tile (the interpreter completes it synchronously); the epilogue
// adds the bias row and rounds to bf16 on the copy out.
//
//   tirx-run examples/linear_bf16.mlir
tirx.kernel @linear(%X: !tirx.buffer<128x256xbf16, global>, %W: !tirx.buffer<256x256xbf16, global>,
                    %b: !tirx.buffer<1x256xbf16, global>)
    -> (%Y: !tirx.buffer<128x256xbf16, global>) grid [2] threads [128] {
  %cta = tirx.cta_id x : index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %n0 = arith.muli %cta, %c128 : index
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  %sx = tirx.alloc : !tirx.buffer<128x64xbf16, shared>
  %sw = tirx.alloc : !tirx.buffer<128x64xbf16, shared>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c256 step %c64 {
    %x = tirx.slice %X[%c0, %k] [128, 64] : !tirx.buffer<128x256xbf16, global> -> !tirx.buffer<128x64xbf16, global>
    %w = tirx.slice %W[%n0, %k] [128, 64] : !tirx.buffer<256x256xbf16, global> -> !tirx.buffer<128x64xbf16, global>
    tirx.copy_async cta %sx, %x : !tirx.buffer<128x64xbf16, shared>, !tirx.buffer<128x64xbf16, global>
    tirx.copy_async cta %sw, %w : !tirx.buffer<128x64xbf16, shared>, !tirx.buffer<128x64xbf16, global>
    tirx.gemm_async cta %acc, %sx, %sw accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xbf16, shared>, !tirx.buffer<128x64xbf16, shared>
  }
  %bias = tirx.slice %b[%c0, %n0] [1, 128] : !tirx.buffer<1x256xbf16, global> -> !tirx.buffer<1x128xbf16, global>
  tirx.add cta %acc, %acc, %bias : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x128xf32, local>, !tirx.buffer<1x128xbf16, global>
  %y = tirx.slice %Y[%c0, %n0] [128, 128] : !tirx.buffer<128x256xbf16, global> -> !tirx.buffer<128x128xbf16, global>
  tirx.copy cta %y, %acc : !tirx.buffer<128x128xbf16, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
