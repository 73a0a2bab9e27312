// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// tirx.select on CUDA (variant default): each linear constraint of the predicate is index
// arithmetic on the element's coordinate and a signed comparison.

tirx.kernel @causal(%X: !tirx.buffer<32x32xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<32x32xf32, local>
  %ninf = arith.constant -1.0e30 : f32
  tirx.copy warp %t, %X : !tirx.buffer<32x32xf32, local>, !tirx.buffer<32x32xf32, global>
  tirx.select warp %t, %t, %ninf where (d0, d1) : (d0 - d1 >= 0) : !tirx.buffer<32x32xf32, local>, !tirx.buffer<32x32xf32, local>, f32
  tirx.return
}

// CHECK-LABEL: @causal
// CHECK:       %[[KEEP:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK:       arith.select %[[KEEP]], %{{.*}}, %ninf : f32
// CHECK-NOT:   tirx.select
