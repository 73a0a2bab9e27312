// RUN: tirx-opt -t cuda %s | filecheck %s

// arith.maximumf / minimumf propagate NaN: helpers once per translation unit (max.NaN.f32 on
// sm_80+, __hmax_nan for halves, a NaN test for f64), called without repeating the operands, so
// a chain of maxima stays linear in size.
tirx.kernel @nan_min_max(%X: !tirx.buffer<4xf32, global>, %D: !tirx.buffer<2xf64, global>,
                         %H: !tirx.buffer<2xf16, global>)
    -> (%Y: !tirx.buffer<3xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = cuda.load %X, %c0 : !tirx.buffer<4xf32, global>, index -> f32
  %b = cuda.load %X, %c1 : !tirx.buffer<4xf32, global>, index -> f32
  %c = cuda.load %X, %c2 : !tirx.buffer<4xf32, global>, index -> f32
  %d = cuda.load %X, %c3 : !tirx.buffer<4xf32, global>, index -> f32
  %m1 = arith.maximumf %a, %b : f32
  %m2 = arith.maximumf %m1, %c : f32
  %m3 = arith.maximumf %m2, %d : f32
  %n = arith.minimumf %a, %b : f32
  %p = cuda.load %D, %c0 : !tirx.buffer<2xf64, global>, index -> f64
  %q = cuda.load %D, %c1 : !tirx.buffer<2xf64, global>, index -> f64
  %pq = arith.maximumf %p, %q : f64
  %pq32 = arith.truncf %pq : f64 to f32
  %h = cuda.load %H, %c0 : !tirx.buffer<2xf16, global>, index -> f16
  %hh = arith.minimumf %h, %h : f16
  %h32 = arith.extf %hh : f16 to f32
  %s = arith.addf %pq32, %h32 : f32
  cuda.store %Y, %c0, %m3 : !tirx.buffer<3xf32, global>, index, f32
  cuda.store %Y, %c1, %n : !tirx.buffer<3xf32, global>, index, f32
  cuda.store %Y, %c2, %s : !tirx.buffer<3xf32, global>, index, f32
  tirx.return
}

// CHECK:      static __device__ __forceinline__ float tirx_maximum(float a, float b) {
// CHECK-NEXT: #if __CUDA_ARCH__ >= 800
// CHECK-NEXT:   float r; asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
// CHECK:      #else
// CHECK-NEXT:   return (a != a || b != b) ? a + b : fmaxf(a, b);
// CHECK:      static __device__ __forceinline__ double tirx_maximum(double a, double b) {
// CHECK-NEXT:   return (a != a || b != b) ? a + b : fmax(a, b);
// CHECK:      static __device__ __forceinline__ __half tirx_minimum(__half a, __half b) {
// CHECK-NEXT:   return __hmin_nan(a, b);
// CHECK:      static __device__ __forceinline__ float tirx_minimum(float a, float b) {
// CHECK:        float r; asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
// CHECK:      = tirx_maximum(tirx_maximum(tirx_maximum(a, b), c), d);
// CHECK:      = tirx_minimum(a, b);
// CHECK:      tirx_maximum(p, q)
// CHECK:      tirx_minimum(h, h)
