// RUN: tirx-opt %s --split-input-file -p trn-allocate | filecheck %s
// trn-allocate: byte offsets per partition (trn.addr); a buffer reuses the memory of one whose
// last use came before its first use; a buffer used in a loop is live for the whole loop; PSUM
// buffers get whole 2 KiB banks; the kernel records its footprint.

tirx.kernel @reuse() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %p = tirx.alloc : !tirx.buffer<128x128xf32, trn.psum>
  %z = arith.constant 0.0 : f32
  nki.memset %a, %z : !tirx.buffer<128x512xf32, trn.sbuf>, f32
  nki.tensor_copy %b, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  nki.tensor_copy %c, %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  nki.memset %p, %z : !tirx.buffer<128x128xf32, trn.psum>, f32
  tirx.return
}

// CHECK-LABEL: @reuse
// CHECK-SAME:  trn.sbuf_bytes = 4096 : i64, trn.psum_bytes = 2048 : i64
// CHECK-NEXT:  %a = tirx.alloc {trn.addr = [[A:[0-9]+]] : i64}
// CHECK-NEXT:  %b = tirx.alloc {trn.addr = [[B:[0-9]+]] : i64}
// CHECK-NEXT:  %c = tirx.alloc {trn.addr = [[A]] : i64}
// CHECK-NEXT:  %p = tirx.alloc {trn.addr = 0 : i64}

// -----

tirx.kernel @loop() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %t = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %z = arith.constant 0.0 : f32
  nki.memset %a, %z : !tirx.buffer<128x512xf32, trn.sbuf>, f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    nki.tensor_copy %t, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
    nki.memset %t, %z : !tirx.buffer<128x512xf32, trn.sbuf>, f32
  }
  tirx.return
}

// CHECK-LABEL: @loop
// CHECK-NEXT:  %a = tirx.alloc {trn.addr = 0 : i64}
// CHECK-NEXT:  %t = tirx.alloc {trn.addr = 2048 : i64}
