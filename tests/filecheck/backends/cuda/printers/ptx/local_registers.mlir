// RUN: tirx-opt %s --split-input-file -t ptx | filecheck %s

// A thread's local array accessed only at constant indices is registers: one .reg array per
// local array of its element type (f16 in .b16); no .local array, no ld.local / st.local. A
// store's mov is deferred: a load of elements stored before in straight-line code reads the
// stored registers (acc[6..7] -> acc[0..1]: no mov), a store nothing reads before the return is
// never printed (acc[4..7]); a load that also reads an element not pending (acc[3]) prints the
// pending moves of what it reads first, then a mov per element; 16-bit pairs are unpacked with
// mov.b32 {lo, hi} at once.
tirx.kernel @promoted(%X: !tirx.buffer<1024xf32, global>, %H: !tirx.buffer<1024xf16, global>) -> (%Y: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %t = cuda.thread_idx x : index
  %i = arith.muli %t, %c4 : index
  %acc = tirx.alloc : !tirx.buffer<8xf32, local>
  %half = tirx.alloc : !tirx.buffer<4xf16, local>
  %v = cuda.load %X, %i : !tirx.buffer<1024xf32, global>, index -> vector<4xf32>
  cuda.store %acc, %c4, %v : !tirx.buffer<8xf32, local>, index, vector<4xf32>
  %h = cuda.load %H, %i : !tirx.buffer<1024xf16, global>, index -> vector<4xf16>
  cuda.store %half, %c0, %h : !tirx.buffer<4xf16, local>, index, vector<4xf16>
  %a = cuda.load %acc, %c6 : !tirx.buffer<8xf32, local>, index -> vector<2xf32>
  cuda.store %acc, %c0, %a : !tirx.buffer<8xf32, local>, index, vector<2xf32>
  %x = cuda.load %acc, %c4 : !tirx.buffer<8xf32, local>, index -> f32
  %hx = cuda.load %half, %c2 : !tirx.buffer<4xf16, local>, index -> f16
  %hf = cuda.cvt %hx : f16 -> f32
  %s = arith.addf %x, %hf : f32
  cuda.store %acc, %c2, %s : !tirx.buffer<8xf32, local>, index, f32
  %out = cuda.load %acc, %c0 : !tirx.buffer<8xf32, local>, index -> vector<4xf32>
  cuda.store %Y, %i, %out : !tirx.buffer<1024xf32, global>, index, vector<4xf32>
  tirx.return
}

// CHECK-LABEL: .visible .entry promoted(
// CHECK:       .reg .f32 %acc_<8>;
// CHECK-NEXT:  .reg .b16 %half_<4>;
// CHECK-NOT:   .local
// CHECK:       ld.global.v4.f32 {[[V0:%f[0-9]+]], {{%f[0-9]+}}, [[V2:%f[0-9]+]], [[V3:%f[0-9]+]]}
// CHECK-NOT:   %acc_4
// CHECK:       ld.global.v2.b32 {[[H01:%r[0-9]+]], [[H23:%r[0-9]+]]}
// CHECK-NEXT:  mov.b32 {%half_0, %half_1}, [[H01]];
// CHECK-NEXT:  mov.b32 {%half_2, %half_3}, [[H23]];
// CHECK-NEXT:  mov.b16 {{%rs[0-9]+}}, %half_2;
// CHECK-NOT:   mov
// CHECK:       add.rn.f32 [[S:%f[0-9]+]], [[V0]], {{%f[0-9]+}};
// CHECK-NEXT:  mov.f32 %acc_0, [[V2]];
// CHECK-NEXT:  mov.f32 %acc_1, [[V3]];
// CHECK-NEXT:  mov.f32 %acc_2, [[S]];
// CHECK-NEXT:  mov.f32 [[O0:%f[0-9]+]], %acc_0;
// CHECK-NEXT:  mov.f32 [[O1:%f[0-9]+]], %acc_1;
// CHECK-NEXT:  mov.f32 [[O2:%f[0-9]+]], %acc_2;
// CHECK-NEXT:  mov.f32 [[O3:%f[0-9]+]], %acc_3;
// CHECK:       st.global.v4.f32 [{{%rd[0-9]+}}], {[[O0]], [[O1]], [[O2]], [[O3]]};
// CHECK-NOT:   ld.local
// CHECK-NOT:   st.local
// CHECK-NOT:   %acc_
// CHECK:       ret;

// -----

// A dynamic index keeps the array in local memory: a .local array, ld.local / st.local at
// base + index * element size (i32 and vector<2xi32> accesses).
tirx.kernel @dynamic(%X: !tirx.buffer<1024xi32, global>) -> (%Y: !tirx.buffer<1024xi32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %t = cuda.thread_idx x : index
  %k = arith.andi %t, %c7 : index
  %buf = tirx.alloc : !tirx.buffer<8xi32, local>
  %x = cuda.load %X, %t : !tirx.buffer<1024xi32, global>, index -> i32
  cuda.store %buf, %k, %x : !tirx.buffer<8xi32, local>, index, i32
  %v = cuda.load %buf, %c0 : !tirx.buffer<8xi32, local>, index -> vector<2xi32>
  %y = cuda.load %buf, %k : !tirx.buffer<8xi32, local>, index -> i32
  cuda.store %Y, %t, %y : !tirx.buffer<1024xi32, global>, index, i32
  tirx.return
}

// CHECK-LABEL: .visible .entry dynamic(
// CHECK:       .local .align 16 .b8 local_buf[32];
// CHECK:       mov.u64 [[BUF:%rd[0-9]+]], local_buf;
// CHECK:       mad.lo.s64 [[A:%rd[0-9]+]], [[K:%rd[0-9]+]], 4, [[BUF]];
// CHECK-NEXT:  st.local.b32 [[[A]]], {{%r[0-9]+}};
// CHECK:       ld.local.v2.b32 {{{%r[0-9]+}}, {{%r[0-9]+}}}
// CHECK:       ld.local.b32
