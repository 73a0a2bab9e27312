// RUN: tirx-opt %s --split-input-file --print-diagnostics -p trn-default-layout | filecheck %s
// trn-default-layout rejects what is not a Trainium layout, at the allocation, with the fix.

tirx.kernel @too_many_partitions() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<256x64xf32, trn.sbuf, S[(256,64):(1@P,1@F)]>
  tirx.return
}

// CHECK: default_layout_errors.mlir:5:3: error: {{.*}}[TRN-LAYOUT] {{.*}} the layout spans 256 partitions but the target has 128; split the partition dim and move its high part to F (e.g. S[(2,128,64):(64@F,1@P,1@F)])

// -----

tirx.kernel @not_trn_axes() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf, S[(128,64):(1@laneid,1@F)]>
  tirx.return
}

// CHECK: error: {{.*}}layout axes laneid are not Trainium axes

