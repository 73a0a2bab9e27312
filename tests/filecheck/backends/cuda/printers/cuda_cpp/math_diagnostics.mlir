// RUN: tirx-opt -t cuda %s | filecheck %s

// Fast math, packing and conversions (the fp16 / bf16 headers come with them), printf, clock64,
// nanosleep, trap.
tirx.kernel @math(%X: !tirx.buffer<256xf32, global>, %H: !tirx.buffer<512xf16, global>,
                  %B: !tirx.buffer<512xbf16, global>) grid [1] threads [256]
    target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %ns = arith.constant 100 : i32
  %t = cuda.thread_idx x : index
  %x = cuda.load %X, %t : !tirx.buffer<256xf32, global>, index -> f32
  %e = cuda.fast exp2 %x : f32 -> f32
  %r = cuda.fast rsqrt %e : f32 -> f32
  %q = cuda.fdividef %r, %x : f32, f32 -> f32
  %h2 = cuda.pack %q, %x : f32, f32 -> vector<2xf16>
  %b2 = cuda.pack %q, %x : f32, f32 -> vector<2xbf16>
  %lo, %hi = cuda.unpack %h2 : vector<2xf16> -> f32, f32
  %bf = cuda.cvt %lo round rz : f32 -> bf16
  %i = cuda.cvt %hi round rd : f32 -> i32
  %trunc = cuda.cvt %hi : f32 -> i32
  %back = cuda.cvt %bf : bf16 -> f32
  %c = cuda.clock64 : i64
  cuda.printf "t=%d x=%f clock=%lld \"quoted\" 100%%\n", %i, %back, %c : i32, f32, i64
  cuda.nanosleep %ns : i32
  %bad = arith.cmpi slt, %trunc, %i : i32
  scf.if %bad {
    cuda.trap
  }
  %t2 = arith.muli %t, %t : index
  cuda.store %H, %c0, %h2 : !tirx.buffer<512xf16, global>, index, vector<2xf16>
  cuda.store %B, %c0, %b2 : !tirx.buffer<512xbf16, global>, index, vector<2xbf16>
  tirx.return
}

// CHECK:      #include <cuda_fp16.h>
// CHECK-NEXT: #include <cuda_bf16.h>
// CHECK:      const float e = exp2f(x);
// CHECK-NEXT: const float r = rsqrtf(e);
// CHECK-NEXT: const float q = __fdividef(r, x);
// CHECK-NEXT: const __half2 h2 = __floats2half2_rn(q, x);
// CHECK-NEXT: const __nv_bfloat162 b2 = __floats2bfloat162_rn(q, x);
// CHECK-NEXT: const float2 f2 = __half22float2(h2);
// CHECK-NEXT: const float lo = f2.x;
// CHECK-NEXT: const float hi = f2.y;
// CHECK-NEXT: const __nv_bfloat16 bf = __float2bfloat16_rz(lo);
// CHECK-NEXT: const int i = __float2int_rd(hi);
// CHECK-NEXT: const int trunc = __float2int_rz(hi);
// CHECK-NEXT: const float back = __bfloat162float(bf);
// CHECK-NEXT: const long long c = clock64();
// CHECK-NEXT: printf("t=%d x=%f clock=%lld \042quoted\042 100%%\012", i, static_cast<double>(back), c);
// CHECK-NEXT: __nanosleep(100);
// CHECK-NEXT: if ((trunc < i)) {
// CHECK-NEXT:   __trap();
// CHECK-NEXT: }
