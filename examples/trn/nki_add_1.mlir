// TIRx's codegen test nki_add_1 (tests/python/tirx/codegen/test_codegen_nki.py) at tile level:
// B = A + 1.0 for a [128, 512] f32 matrix; load, one tensor_scalar, store.
//
//   tirx-run examples/trn/nki_add_1.mlir
tirx.kernel @nki_add_1(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  %one = arith.constant 1.0 : f32
  tirx.add %b, %a, %one : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.copy %B, %b : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
