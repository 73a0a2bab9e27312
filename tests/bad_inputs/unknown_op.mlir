// EXPECT-ERROR: unknown operation 'tirx.softmax'
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  tirx.softmax %A, %A : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, global>
  tirx.return
}
