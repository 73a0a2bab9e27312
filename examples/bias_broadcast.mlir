// A linear layer's epilogue: Y = relu(X * scale + bias), with a per-row scale [256, 1] (a column
// vector) and a per-column bias [1, 128] (a row vector), both broadcast NumPy-style over X.
// Two CTAs of 128 threads, one 128-row tile each; the bias is shared by both CTAs.
//
//   tirx-run examples/bias_broadcast.mlir
tirx.kernel @bias_relu(%X: !tirx.buffer<256x128xf32, global>, %scale: !tirx.buffer<256x1xf32, global>,
                       %bias: !tirx.buffer<1x128xf32, global>)
    -> (%Y: !tirx.buffer<256x128xf32, global>) grid [2] threads [128] {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %zero = arith.constant 0.0 : f32
  %x = tirx.slice %X[%row, 0] [128, 128] : !tirx.buffer<256x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %s = tirx.slice %scale[%row, 0] [128, 1] : !tirx.buffer<256x1xf32, global> -> !tirx.buffer<128x1xf32, global>
  %y = tirx.slice %Y[%row, 0] [128, 128] : !tirx.buffer<256x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %t = tirx.alloc : !tirx.buffer<128x128xf32, shared>
  %ss = tirx.alloc : !tirx.buffer<128x1xf32, shared>
  %sb = tirx.alloc : !tirx.buffer<1x128xf32, shared>
  tirx.copy cta %t, %x : !tirx.buffer<128x128xf32, shared>, !tirx.buffer<128x128xf32, global>
  tirx.copy cta %ss, %s : !tirx.buffer<128x1xf32, shared>, !tirx.buffer<128x1xf32, global>
  tirx.copy cta %sb, %bias : !tirx.buffer<1x128xf32, shared>, !tirx.buffer<1x128xf32, global>
  tirx.fma cta %t, %t, %ss, %sb : !tirx.buffer<128x128xf32, shared>, !tirx.buffer<128x128xf32, shared>, !tirx.buffer<128x1xf32, shared>, !tirx.buffer<1x128xf32, shared>
  tirx.maximum cta %t, %t, %zero : !tirx.buffer<128x128xf32, shared>, !tirx.buffer<128x128xf32, shared>, f32
  tirx.copy cta %y, %t : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, shared>
  tirx.return
}
