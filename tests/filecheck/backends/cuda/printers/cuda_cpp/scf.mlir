// RUN: tirx-opt -t cuda %s | filecheck %s

// Loops with carried values (one mutable variable each, updated through temporaries when
// several change at once), if with results, while loops; hostile names are sanitised.
tirx.kernel @"scf-loops"(%in_put: !tirx.buffer<1024xf32, global>)
    -> (%out: !tirx.buffer<2xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %t = cuda.thread_idx x : index
  %a, %b = scf.for %i = %c0 to %c32 step %c1 iter_args(%x = %zero, %y = %zero) -> (f32, f32) {
    %j0 = arith.muli %i, %c32 : index
    %j = arith.addi %j0, %t : index
    %v = cuda.load %in_put, %j : !tirx.buffer<1024xf32, global>, index -> f32
    %nx = arith.addf %y, %v : f32
    scf.yield %nx, %x : f32, f32
  }
  %first = arith.cmpi eq, %t, %c0 : index
  %r = scf.if %first -> (f32) {
    scf.yield %a : f32
  } else {
    scf.yield %b : f32
  }
  %n = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi slt, %k, %c32 : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%k2: index):
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3 : index
  }
  %nf = arith.index_cast %n : index to i64
  %f = arith.sitofp %nf : i64 to f32
  %s = arith.addf %r, %f : f32
  cuda.store %out, %c0, %s : !tirx.buffer<2xf32, global>, index, f32
  tirx.return
}

// CHECK:      scf_loops(float* __restrict__ in_put, float* __restrict__ out) {
// CHECK-NEXT:   const long long t = static_cast<long long>(threadIdx.x);
// CHECK-NEXT:   float a = 0.0f;
// CHECK-NEXT:   float b = 0.0f;
// CHECK-NEXT:   for (long long i = 0; i < 32; i += 1) {
// CHECK-NEXT:     const float v = *reinterpret_cast<const float*>(in_put + ((i * 32) + t));
// CHECK-NEXT:     const float a_next = (b + v);
// CHECK-NEXT:     const float b_next = a;
// CHECK-NEXT:     a = a_next;
// CHECK-NEXT:     b = b_next;
// CHECK-NEXT:   }
// CHECK-NEXT:   float r;
// CHECK-NEXT:   if ((t == 0)) {
// CHECK-NEXT:     r = a;
// CHECK-NEXT:   } else {
// CHECK-NEXT:     r = b;
// CHECK-NEXT:   }
// CHECK-NEXT:   long long k = 0;
// CHECK-NEXT:   long long n;
// CHECK-NEXT:   while (true) {
// CHECK-NEXT:     n = k;
// CHECK-NEXT:     if (!(k < 32)) break;
// CHECK-NEXT:     k = (n + 1);
// CHECK-NEXT:   }
// CHECK-NEXT:   *reinterpret_cast<float*>(out + 0) = (r + ((float)n));
