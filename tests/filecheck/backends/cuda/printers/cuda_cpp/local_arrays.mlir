// RUN: tirx-opt -t cuda %s | filecheck %s

// A thread's local array (a register tile after dispatch) is a plain C array accessed element
// by element: a vector load builds the vector from its elements, a vector store writes its
// lanes one by one (no cast of the array to a vector pointer, which would need its alignment),
// so at constant indices nvcc keeps the array in registers; a dynamic index is local memory.
tirx.kernel @local_arrays(%X: !tirx.buffer<1024xf32, global>, %H: !tirx.buffer<1024xf16, global>) -> (%Y: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %t = cuda.thread_idx x : index
  %i = arith.muli %t, %c4 : index
  %acc = tirx.alloc : !tirx.buffer<8xf32, local>
  %hl = tirx.alloc : !tirx.buffer<4xf16, local>
  %v = cuda.load %X, %i : !tirx.buffer<1024xf32, global>, index -> vector<4xf32>
  cuda.store %acc, %c4, %v : !tirx.buffer<8xf32, local>, index, vector<4xf32>
  %h = cuda.load %H, %i : !tirx.buffer<1024xf16, global>, index -> vector<2xf16>
  cuda.store %hl, %c2, %h : !tirx.buffer<4xf16, local>, index, vector<2xf16>
  %hx = cuda.load %hl, %c2 : !tirx.buffer<4xf16, local>, index -> f16
  %hf = cuda.cvt %hx : f16 -> f32
  %x = cuda.load %acc, %c4 : !tirx.buffer<8xf32, local>, index -> f32
  %s = arith.addf %x, %hf : f32
  cuda.store %acc, %c0, %s : !tirx.buffer<8xf32, local>, index, f32
  %k = arith.andi %t, %c7 : index
  %dyn = cuda.load %acc, %k : !tirx.buffer<8xf32, local>, index -> f32
  %pair = cuda.load %acc, %c4 : !tirx.buffer<8xf32, local>, index -> vector<2xf32>
  cuda.store %Y, %t, %dyn : !tirx.buffer<1024xf32, global>, index, f32
  cuda.store %Y, %i, %pair : !tirx.buffer<1024xf32, global>, index, vector<2xf32>
  tirx.return
}

// CHECK:      float acc[8];
// CHECK-NEXT: __half hl[4];
// CHECK-NEXT: const float4 v = *reinterpret_cast<const float4*>(X + (t * 4));
// CHECK-NEXT: acc[4] = v.x;
// CHECK-NEXT: acc[5] = v.y;
// CHECK-NEXT: acc[6] = v.z;
// CHECK-NEXT: acc[7] = v.w;
// CHECK-NEXT: const __half2 h = *reinterpret_cast<const __half2*>(H + (t * 4));
// CHECK-NEXT: hl[2] = h.x;
// CHECK-NEXT: hl[3] = h.y;
// CHECK-NEXT: const __half hx = hl[2];
// CHECK:      const float x = acc[4];
// CHECK:      acc[0] = (x + hf);
// CHECK-NEXT: const float dyn = acc[(t & 7)];
// CHECK-NEXT: const float2 pair = float2{acc[4], acc[5]};
