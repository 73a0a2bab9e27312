// RUN: tirx-opt %s --split-input-file -p trn-default-layout | filecheck %s
// trn-default-layout: on-chip buffers without a layout get TIRx's default Trainium layout (dim 0
// on partitions, split past 128 with the high part outermost on F); explicit layouts are kept.

tirx.kernel @defaults() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<256x2048xbf16, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.psum>
  %d = tirx.alloc : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]>
  %e = tirx.alloc : !tirx.buffer<64xf32, global>
  tirx.return
}

// CHECK-LABEL: @defaults
// CHECK-NEXT:  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
// CHECK-NEXT:  %b = tirx.alloc : !tirx.buffer<256x2048xbf16, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
// CHECK-NEXT:  %c = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.psum, S[(128,4,512):(1@P,512@F,1@F)]>
// CHECK-NEXT:  %d = tirx.alloc : !tirx.buffer<128x96xf32, trn.sbuf, S[(128,96):(1@F,1@P)]>
// CHECK-NEXT:  %e = tirx.alloc : !tirx.buffer<64xf32, global>{{$}}

// -----

tirx.kernel @bind(%X: !tirx.buffer<128x1xf32, global>) grid [1] threads [1] {
  %a = tirx.alloc : !tirx.buffer<384x1xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @bind
// CHECK-NEXT:  %a = tirx.alloc : !tirx.buffer<384x1xf32, trn.sbuf, S[(3,128,1):(1@F,1@P,1@F)]>

// -----

// A dim 0 that 128 does not divide: tiles of 128 rows, the last one partial (the layout covers
// the rows rounded up to whole tiles); an explicit such layout is accepted too.
tirx.kernel @ragged() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<257x64xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<1000x1000xf32, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<300x7xf32, trn.sbuf>
  %d = tirx.alloc : !tirx.buffer<129x4x8xf32, trn.sbuf, S[(2,128,4,8):(32@F,1@P,8@F,1@F)]>
  tirx.return
}

// CHECK-LABEL: @ragged
// CHECK-NEXT:  %a = tirx.alloc : !tirx.buffer<257x64xf32, trn.sbuf, S[(3,128,64):(64@F,1@P,1@F)]>
// CHECK-NEXT:  %b = tirx.alloc : !tirx.buffer<1000x1000xf32, trn.sbuf, S[(8,128,1000):(1000@F,1@P,1@F)]>
// CHECK-NEXT:  %c = tirx.alloc : !tirx.buffer<300x7xf32, trn.sbuf, S[(3,128,7):(7@F,1@P,1@F)]>
// CHECK-NEXT:  %d = tirx.alloc : !tirx.buffer<129x4x8xf32, trn.sbuf, S[(2,128,4,8):(32@F,1@P,8@F,1@F)]>
