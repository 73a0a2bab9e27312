// RUN: tirx-opt %s --split-input-file -p trn-default-layout,tirx-dispatch | filecheck %s
// tirx.exp on trn (unary_with_bias_scale): activation exp with a [P, 1] bias tile and a scalar
// scale; a constant bias becomes a shared [128, 1] tile filled once at kernel entry
// (NeuronCore-v2); a full-tile bias goes through unary_decompose (fma then exp).

tirx.kernel @vector_bias() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %s = arith.constant 0.5 : f32
  tirx.exp %a, %a bias %v scale %s : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @vector_bias
// CHECK:       nki.activation %a, %a func exp bias %v scale %s :

// -----

tirx.kernel @const_bias() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %m = arith.constant -1.0 : f32
  tirx.exp %a, %a bias %m : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.exp %b, %b bias %m : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}

// CHECK-LABEL: @const_bias
// CHECK:       [[T:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
// CHECK:       nki.memset [[T]], %{{.*}} : !tirx.buffer<128x1xf32, trn.sbuf>, f32
// CHECK:       nki.activation %a, %a func exp bias [[T]] :
// CHECK:       nki.activation %b, %b func exp bias [[T]] :

// -----

tirx.kernel @full_bias() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.exp %a, %a bias %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK-LABEL: @full_bias
// CHECK:       [[T:%[0-9]+]] = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[{{.*}}]>
// CHECK:       nki.scalar_tensor_tensor [[T]], %a, %{{.*}}, %b op0 multiply op1 add :
// CHECK:       nki.activation %a, [[T]] func exp :
