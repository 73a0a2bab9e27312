// Elementwise adds on one [128, 512] f32 SBUF tile: C = A + B (two tiles, tensor_tensor),
// then C = C + 2.0 (a constant, tensor_scalar) and C = C * s (a per-row [128, 1] scale
// broadcast along the free dim, tensor_scalar with a vector operand).
//
//   tirx-run examples/trn/add.mlir
//   tirx-opt --pass-pipeline=trn examples/trn/add.mlir -t nki
tirx.kernel @add(%A: !tirx.buffer<128x512xf32, global>, %B: !tirx.buffer<128x512xf32, global>,
                 %S: !tirx.buffer<128x1xf32, global>)
    -> (%C: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.copy %b, %B : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.copy %s, %S : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, global>
  tirx.add %a, %a, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  %two = arith.constant 2.0 : f32
  tirx.add %a, %a, %two : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.mul %a, %s, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %C, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
