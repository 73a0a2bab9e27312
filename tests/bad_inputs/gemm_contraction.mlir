// EXPECT-ERROR: gemm contraction mismatch
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %d = tirx.alloc : !tirx.buffer<128x128xf32, shared>
  tirx.gemm %d, %A, %A : !tirx.buffer<128x128xf32, shared>, !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, global>
  tirx.return
}
