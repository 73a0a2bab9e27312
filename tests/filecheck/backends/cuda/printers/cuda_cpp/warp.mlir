// RUN: tirx-opt -t cuda %s | filecheck %s

// Shuffles, votes, warp and block reductions.
tirx.kernel @warp(%X: !tirx.buffer<256xf32, global>) -> (%Y: !tirx.buffer<256xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %full = arith.constant -1 : i32
  %one = arith.constant 1 : i32
  %t = cuda.thread_idx x : index
  %x = cuda.load %X, %t : !tirx.buffer<256xf32, global>, index -> f32
  %scratch = cuda.shared_alloc : !tirx.buffer<8xf32, shared>
  %a = cuda.shfl_sync idx %full, %x, %one : i32, f32, i32 -> f32
  %b = cuda.shfl_sync up %full, %a, %one width 16 : i32, f32, i32 -> f32
  %c = cuda.shfl_sync down %full, %b, %one : i32, f32, i32 -> f32
  %d = cuda.shfl_sync xor %full, %c, %one : i32, f32, i32 -> f32
  %pos = arith.cmpf ogt, %d, %x : f32
  %ball = cuda.vote ballot %full, %pos : i32, i1 -> i32
  %all = cuda.vote all %full, %pos : i32, i1 -> i1
  %am = cuda.activemask : i32
  %ws = cuda.warp_reduce sum %full, %d : i32, f32 -> f32
  %wx = cuda.warp_reduce xor %full, %ball width 8 : i32, i32 -> i32
  %cm = cuda.cta_reduce max %ws, %scratch : f32, !tirx.buffer<8xf32, shared> -> f32
  %f = arith.sitofp %wx : i32 to f32
  %g = arith.addf %cm, %f : f32
  %h = arith.select %all, %g, %x : f32
  %k = arith.sitofp %am : i32 to f32
  %r = arith.addf %h, %k : f32
  cuda.store %Y, %t, %r : !tirx.buffer<256xf32, global>, index, f32
  tirx.return
}

// CHECK:      const float a = __shfl_sync(static_cast<unsigned int>((-1)), x, 1, 32);
// CHECK-NEXT: const float b = __shfl_up_sync(static_cast<unsigned int>((-1)), a, 1, 16);
// CHECK-NEXT: const float c = __shfl_down_sync(static_cast<unsigned int>((-1)), b, 1, 32);
// CHECK-NEXT: const float d = __shfl_xor_sync(static_cast<unsigned int>((-1)), c, 1, 32);
// CHECK-NEXT: const int ball = __ballot_sync(static_cast<unsigned int>((-1)), (d > x));
// CHECK-NEXT: const bool all = __all_sync(static_cast<unsigned int>((-1)), (d > x));
// CHECK-NEXT: const int am = __activemask();
// CHECK-NEXT: float ws = d;
// CHECK-NEXT: for (int offset = 16; offset > 0; offset >>= 1) {
// CHECK-NEXT:   ws = (ws + __shfl_xor_sync(static_cast<unsigned int>((-1)), ws, offset, 32));
// CHECK-NEXT: }
// CHECK-NEXT: int wx = ball;
// CHECK-NEXT: for (int offset_1 = 4; offset_1 > 0; offset_1 >>= 1) {
// CHECK-NEXT:   wx = (wx ^ __shfl_xor_sync(static_cast<unsigned int>((-1)), wx, offset_1, 8));
// CHECK:      float cm = ws;
// CHECK:      if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32] = cm;
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: if (threadIdx.x < 32) {
// CHECK-NEXT:   cm = (threadIdx.x < 8) ? scratch[threadIdx.x] : scratch[0];
// CHECK-NEXT:   for (int offset_3 = 4; offset_3 > 0; offset_3 >>= 1) {
// CHECK:      cm = scratch[0];
