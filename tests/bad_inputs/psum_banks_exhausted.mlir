// ARGS: --pass-pipeline=trn
// EXPECT-ERROR: does not fit in trn.psum: kernel @banks needs 9 banks at its peak but trn.psum has 8 banks of 2048 bytes per partition
tirx.kernel @banks(%X: !tirx.buffer<128x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %p0 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p1 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p2 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p3 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p4 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p5 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p6 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p7 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %p8 = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.copy %p0, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p1, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p2, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p3, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p4, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p5, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p6, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p7, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %p8, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.add %x, %x, %p0 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p1 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p2 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p3 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p4 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p5 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p6 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p7 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %p8 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.copy %Y, %x : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
