// RUN: tirx-opt %s --split-input-file --print-diagnostics -p trn-default-layout | filecheck %s
// On-chip buffers that do not fit fail at the allocation that overflows, with the allocator's
// numbers: SBUF in usable bytes per partition (192 KiB less the 16 KiB reserve), PSUM in banks.

tirx.kernel @sbuf(%X: !tirx.buffer<128x30000xf32, global>) -> (%Y: !tirx.buffer<128x30000xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x30000xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x30000xf32, trn.sbuf>
  tirx.copy %a, %X : !tirx.buffer<128x30000xf32, trn.sbuf>, !tirx.buffer<128x30000xf32, global>
  tirx.copy %b, %X : !tirx.buffer<128x30000xf32, trn.sbuf>, !tirx.buffer<128x30000xf32, global>
  tirx.add %a, %a, %b : !tirx.buffer<128x30000xf32, trn.sbuf>, !tirx.buffer<128x30000xf32, trn.sbuf>, !tirx.buffer<128x30000xf32, trn.sbuf>
  tirx.copy %Y, %a : !tirx.buffer<128x30000xf32, global>, !tirx.buffer<128x30000xf32, trn.sbuf>
  tirx.return
}

// CHECK: capacity.mlir:7:3: error: {{.*}}[TRN-ALLOC] %b !tirx.buffer<128x30000xf32, trn.sbuf, S[(128,30000):(1@P,1@F)]> (120000 B) does not fit in trn.sbuf: kernel @sbuf needs 240000 bytes per partition at its peak but trn.sbuf has 180224 usable bytes per partition (196608 less 16384 reserved; target 'aws/trn1/trn1.2xlarge')
// CHECK-NEXT: live at the peak: %a {{.*}} (120000 B), %b {{.*}} (120000 B)

// -----

tirx.kernel @psum(%X: !tirx.buffer<128x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %p = tirx.alloc : !tirx.buffer<128x2048xf32, trn.psum>
  %q = tirx.alloc : !tirx.buffer<128x2048xf32, trn.psum>
  %r = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.zero %p : !tirx.buffer<128x2048xf32, trn.psum>
  tirx.zero %q : !tirx.buffer<128x2048xf32, trn.psum>
  tirx.zero %r : !tirx.buffer<128x512xf32, trn.psum>
  %ps = tirx.slice %p[0, 0] [128, 512] : !tirx.buffer<128x2048xf32, trn.psum> -> !tirx.buffer<128x512xf32, trn.psum>
  %qs = tirx.slice %q[0, 0] [128, 512] : !tirx.buffer<128x2048xf32, trn.psum> -> !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %ps, %qs : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.add %x, %x, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.copy %Y, %x : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK: capacity.mlir:24:3: error: {{.*}}[TRN-ALLOC] %r !tirx.buffer<128x512xf32, trn.psum, {{.*}}> (1 bank) does not fit in trn.psum: kernel @psum needs 9 banks at its peak but trn.psum has 8 banks of 2048 bytes per partition (each PSUM tile takes whole banks; {{.*}})
// CHECK-NEXT: live at the peak: %p {{.*}} (4 banks), %q {{.*}} (4 banks), %r {{.*}} (1 bank)
