// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.sqrt on trn: activation sqrt with scalar bias (a constant tile on v2) and scale.

tirx.kernel @sqrt() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %e = arith.constant 1.0e-5 : f32
  %s = arith.constant 0.25 : f32
  tirx.sqrt %a, %a bias %e scale %s : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32, f32
  tirx.return
}

// CHECK-LABEL: @sqrt
// CHECK:       nki.memset [[T:%.*]], %{{.*}} : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK:       nki.activation %a, %a func sqrt bias [[T]] scale %s :
