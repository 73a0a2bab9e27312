// C = A @ B with f16 inputs and f32 accumulation: A is 256x128, B is 128x256, C is 256x256 f32.
// A 2x2 grid of CTAs (128 threads each) computes one 128x128 tile of C per CTA; an scf.for loop
// walks K in steps of 64, staging the A and B tiles in shared memory and accumulating into a
// register (local) tile with gemm's beta = 1.
//
//   tirx-run examples/gemm_f16.mlir
tirx.kernel @gemm(%A: !tirx.buffer<256x128xf16, global>, %B: !tirx.buffer<128x256xf16, global>)
    -> (%C: !tirx.buffer<256x256xf32, global>) grid [2, 2] threads [128] {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  %sa = tirx.alloc : !tirx.buffer<128x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c128 step %c64 {
    %a = tirx.slice %A[%m0, %k] [128, 64] : !tirx.buffer<256x128xf16, global> -> !tirx.buffer<128x64xf16, global>
    %b = tirx.slice %B[%k, %n0] [64, 128] : !tirx.buffer<128x256xf16, global> -> !tirx.buffer<64x128xf16, global>
    tirx.copy cta %sa, %a : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.copy cta %sb, %b : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
    tirx.gemm cta %acc, %sa, %sb beta 1.0 : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<64x128xf16, shared>
  }
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
