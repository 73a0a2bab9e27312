// RUN: tirx-opt %s --pass-pipeline=trn | filecheck %s
// The trn pipeline end to end: a tile-level softmax becomes physical, addressed NKI-level IR.

tirx.kernel @softmax(%X: !tirx.buffer<256x1024xf32, global>) -> (%Y: !tirx.buffer<256x1024xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x1024xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<256x1xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<256x1024xf32, trn.sbuf>, !tirx.buffer<256x1024xf32, global>
  tirx.reduce_negate %m, %x reduce max : !tirx.buffer<256x1xf32, trn.sbuf>, !tirx.buffer<256x1024xf32, trn.sbuf>
  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : !tirx.buffer<256x1024xf32, trn.sbuf>, !tirx.buffer<256x1xf32, trn.sbuf>, !tirx.buffer<256x1024xf32, trn.sbuf>, !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.reciprocal %s, %s : !tirx.buffer<256x1xf32, trn.sbuf>, !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.mul %x, %x, %s : !tirx.buffer<256x1024xf32, trn.sbuf>, !tirx.buffer<256x1024xf32, trn.sbuf>, !tirx.buffer<256x1xf32, trn.sbuf>
  tirx.copy %Y, %x : !tirx.buffer<256x1024xf32, global>, !tirx.buffer<256x1024xf32, trn.sbuf>
  tirx.return
}

// CHECK:       builtin.module attributes {tirx.dispatched}
// CHECK-NEXT:  tirx.kernel @softmax
// CHECK-SAME:  trn.sbuf_bytes = {{[0-9]+}} : i64, trn.psum_bytes = 0 : i64
// CHECK-NEXT:  %x = tirx.alloc {trn.addr = {{[0-9]+}} : i64} : !tirx.buffer<128x2048xf32, trn.sbuf>
// CHECK-NEXT:  %m = tirx.alloc {trn.addr = {{[0-9]+}} : i64} : !tirx.buffer<128x2xf32, trn.sbuf>
// CHECK-NEXT:  %s = tirx.alloc {trn.addr = {{[0-9]+}} : i64} : !tirx.buffer<128x2xf32, trn.sbuf>
// CHECK:       nki.load {{.*}} : !tirx.buffer<128x2x1024xf32, trn.sbuf>, !tirx.buffer<128x2x1024xf32, global>
// CHECK-NEXT:  nki.tensor_reduce %m, {{.*}} op maximum axes [2] negate : !tirx.buffer<128x2xf32, trn.sbuf>, !tirx.buffer<128x2x1024xf32, trn.sbuf>
// CHECK:       scf.for
// CHECK:         nki.activation_reduce {{.*}} func exp bias
// CHECK:       nki.reciprocal %s, %s
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           nki.tensor_scalar {{.*}} op0 multiply : !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK:       nki.store {{.*}} : !tirx.buffer<128x2x1024xf32, global>, !tirx.buffer<128x2x1024xf32, trn.sbuf>
// CHECK-NOT:   tirx.alloc : !tirx.buffer<{{.*}}, S[
// CHECK-NOT:   tirx.{{(add|mul|copy|sum|reduce_negate|unary_reduce|reciprocal)}}
