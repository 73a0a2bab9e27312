// TIRx's codegen test nki_add_2 at tile level: B = A + 1.0 for [128, 2048] f32, processed in
// four 512-column chunks by a loop over [128, 512] SBUF tiles.
//
//   tirx-run examples/trn/nki_add_2.mlir
tirx.kernel @nki_add_2(%A: !tirx.buffer<128x2048xf32, global>) -> (%B: !tirx.buffer<128x2048xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %one = arith.constant 1.0 : f32
  scf.for %k = %c0 to %c4 step %c1 {
    %col = arith.muli %k, %c512 : index
    %src = tirx.slice %A[0, %col] [128, 512] : !tirx.buffer<128x2048xf32, global> -> !tirx.buffer<128x512xf32, global>
    %dst = tirx.slice %B[0, %col] [128, 512] : !tirx.buffer<128x2048xf32, global> -> !tirx.buffer<128x512xf32, global>
    tirx.copy %a, %src : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.add %b, %a, %one : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
    tirx.copy %dst, %b : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}
