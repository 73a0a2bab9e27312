// Elementwise C = A + B on a 512x256 f16 matrix.
// Four CTAs of 128 threads; CTA i stages rows [128*i, 128*i + 128) in shared memory, adds them
// with cta-scope (collective) tile ops, and writes its tile back. The f16 sum is computed in f32
// and rounded to nearest even when stored.
//
//   tirx-run examples/add.mlir
tirx.kernel @add(%A: !tirx.buffer<512x256xf16, global>, %B: !tirx.buffer<512x256xf16, global>)
    -> (%C: !tirx.buffer<512x256xf16, global>) grid [4] threads [128] {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %a = tirx.slice %A[%row, 0] [128, 256] : !tirx.buffer<512x256xf16, global> -> !tirx.buffer<128x256xf16, global>
  %b = tirx.slice %B[%row, 0] [128, 256] : !tirx.buffer<512x256xf16, global> -> !tirx.buffer<128x256xf16, global>
  %c = tirx.slice %C[%row, 0] [128, 256] : !tirx.buffer<512x256xf16, global> -> !tirx.buffer<128x256xf16, global>
  %sa = tirx.alloc : !tirx.buffer<128x256xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<128x256xf16, shared>
  tirx.copy cta %sa, %a : !tirx.buffer<128x256xf16, shared>, !tirx.buffer<128x256xf16, global>
  tirx.copy cta %sb, %b : !tirx.buffer<128x256xf16, shared>, !tirx.buffer<128x256xf16, global>
  tirx.add cta %sa, %sa, %sb : !tirx.buffer<128x256xf16, shared>, !tirx.buffer<128x256xf16, shared>, !tirx.buffer<128x256xf16, shared>
  tirx.copy cta %c, %sa : !tirx.buffer<128x256xf16, global>, !tirx.buffer<128x256xf16, shared>
  tirx.return
}
