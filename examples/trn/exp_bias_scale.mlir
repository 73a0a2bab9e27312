// Activations with bias and scale on a [128, 512] f32 tile (nki.activation computes
// f(x * scale + bias)): Y = exp(0.5 * x + b) with a per-row bias tile b [128, 1], and
// Z = exp(x * s - 1.0) with a per-row scale tile s [128, 1] and a constant bias (NeuronCore-v2
// takes no scalar bias: it becomes a shared [128, 1] constant tile, filled once at kernel entry).
//
//   tirx-run examples/trn/exp_bias_scale.mlir
tirx.kernel @exp_bias_scale(%X: !tirx.buffer<128x512xf32, global>, %Bias: !tirx.buffer<128x1xf32, global>,
                            %Scale: !tirx.buffer<128x1xf32, global>)
    -> (%Y: !tirx.buffer<128x512xf32, global>, %Z: !tirx.buffer<128x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %z = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.copy %b, %Bias : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, global>
  tirx.copy %s, %Scale : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, global>
  %half = arith.constant 0.5 : f32
  tirx.exp %y, %x bias %b scale %half : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
  %m1 = arith.constant -1.0 : f32
  tirx.exp %z, %x bias %m1 scale %s : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %Y, %y : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %Z, %z : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
