// "PF" (256 rows: two partition tiles), "FP" (a transposed tile) and a PSUM "PF" of two banks;
// used by test_layout_shorthand.py.
tirx.kernel @k(%X: !tirx.buffer<256x128xf32, global>, %W: !tirx.buffer<128x1024xf32, global>) -> (%Y: !tirx.buffer<256x128xf32, global>, %T: !tirx.buffer<128x128xf32, global>, %V: !tirx.buffer<128x1024xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x128xf32, trn.sbuf, "PF">
  %t = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf, "FP">
  %w = tirx.alloc : !tirx.buffer<128x1024xf32, trn.sbuf, "PF">
  %p = tirx.alloc : !tirx.buffer<128x1024xf32, trn.psum, "PF">
  tirx.copy %x, %X : !tirx.buffer<256x128xf32, trn.sbuf, "PF">, !tirx.buffer<256x128xf32, global>
  tirx.exp %x, %x : !tirx.buffer<256x128xf32, trn.sbuf, "PF">, !tirx.buffer<256x128xf32, trn.sbuf, "PF">
  tirx.copy %Y, %x : !tirx.buffer<256x128xf32, global>, !tirx.buffer<256x128xf32, trn.sbuf, "PF">
  %top = tirx.slice %x[0, 0] [128, 128] : !tirx.buffer<256x128xf32, trn.sbuf, "PF"> -> !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %t, %top : !tirx.buffer<128x128xf32, trn.sbuf, "FP">, !tirx.buffer<128x128xf32, trn.sbuf>
  tirx.copy %T, %t : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, trn.sbuf, "FP">
  tirx.copy %w, %W : !tirx.buffer<128x1024xf32, trn.sbuf, "PF">, !tirx.buffer<128x1024xf32, global>
  tirx.copy %p, %w : !tirx.buffer<128x1024xf32, trn.psum, "PF">, !tirx.buffer<128x1024xf32, trn.sbuf, "PF">
  tirx.add %w, %w, %p : !tirx.buffer<128x1024xf32, trn.sbuf, "PF">, !tirx.buffer<128x1024xf32, trn.sbuf, "PF">, !tirx.buffer<128x1024xf32, trn.psum, "PF">
  tirx.copy %V, %w : !tirx.buffer<128x1024xf32, global>, !tirx.buffer<128x1024xf32, trn.sbuf, "PF">
  tirx.return
}
