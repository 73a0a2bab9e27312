// EXPECT-ERROR: did you mean 'tirx.buffer'
tirx.kernel @k(%A: !tirx.bufer<128xf32, global>) grid [1] threads [1] {
  tirx.return
}
