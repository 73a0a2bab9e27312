// RUN: tirx-run %s | filecheck %s
// RUN: tirx-run %s --pass-pipeline cleanup | filecheck %s

// Two CTAs each fill half of Y; Z is only half written, so the other half reads as NaN.
// CHECK:      %Y: [2, 4] f32  min 1.5  max 2.5  mean 2  nan 0
// CHECK-NEXT: %Z: [2, 4] bf16  min 0  max 0  mean 0  nan 4
// CHECK-NEXT: %N: [4] i8  min 44  max 44  mean 44  poison 0

tirx.kernel @fill(%X: !tirx.buffer<2x4xf32, global>)
    -> (%Y: !tirx.buffer<2x4xf32, global>, %Z: !tirx.buffer<2x4xbf16, global>, %N: !tirx.buffer<4xi8, global>)
    grid [2] threads [1] {
  %cta = tirx.cta_id x : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %big = arith.constant 300 : i32
  %i = arith.index_cast %cta : index to i32
  %f = arith.sitofp %i : i32 to f32
  %v = arith.addf %f, %one : f32
  %half = arith.constant 0.5 : f32
  %w = arith.addf %v, %half : f32
  %row = tirx.slice %Y[%cta, 0] [1, 4] : !tirx.buffer<2x4xf32, global> -> !tirx.buffer<1x4xf32, global>
  tirx.fill %row, %w : !tirx.buffer<1x4xf32, global>, f32
  %z = tirx.slice %Z[0, 0] [1, 4] : !tirx.buffer<2x4xbf16, global> -> !tirx.buffer<1x4xbf16, global>
  tirx.zero %z : !tirx.buffer<1x4xbf16, global>
  tirx.fill %N, %big : !tirx.buffer<4xi8, global>, i32
  tirx.return
}
