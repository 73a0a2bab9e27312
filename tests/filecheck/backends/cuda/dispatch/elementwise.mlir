// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// Elementwise tile ops on CUDA (variants reg, smem, gmem): one scalar op per element in f32,
// operands read where the thread finds them, broadcast operands at index 0 of their unit dims.

tirx.kernel @reg_exp_bias(%X: !tirx.buffer<32x8xf16, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<32x8xf16, local, S[(32,8):(1@laneid,1)]>
  %b = tirx.alloc : !tirx.buffer<32x1xf32, local, S[(32,1):(1@laneid,1)]>
  tirx.copy warp %t, %X : !tirx.buffer<32x8xf16, local, S[(32,8):(1@laneid,1)]>, !tirx.buffer<32x8xf16, global>
  tirx.exp warp %t, %t bias %b : !tirx.buffer<32x8xf16, local, S[(32,8):(1@laneid,1)]>, !tirx.buffer<32x8xf16, local, S[(32,8):(1@laneid,1)]>, !tirx.buffer<32x1xf32, local, S[(32,1):(1@laneid,1)]>
  tirx.return
}

// A warp tile of 32x8 f16 with one row per lane: the bias of its row is the lane's own register
// 0; exp is computed in f32 and rounded to f16 on the store. (With the default warp spread,
// 4 elements per lane and round, a lane would need another lane's bias: the variant declines.)
// CHECK-LABEL: @reg_exp_bias
// CHECK:       %[[T:.*]] = tirx.alloc : !tirx.buffer<8xf16, local>
// CHECK:       %[[B:.*]] = tirx.alloc : !tirx.buffer<1xf32, local>
// CHECK:       %[[X:.*]] = cuda.load %[[T]], %{{.*}} : !tirx.buffer<8xf16, local>, index -> f16
// CHECK:       %[[BIAS:.*]] = cuda.load %[[B]], %{{.*}} : !tirx.buffer<1xf32, local>, index -> f32
// CHECK:       %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK:       %[[S:.*]] = arith.addf %[[XF]], %[[BIAS]] : f32
// CHECK:       %[[E:.*]] = math.exp %[[S]] : f32
// CHECK:       %[[H:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK:       cuda.store %[[T]], %{{.*}}, %[[H]] : !tirx.buffer<8xf16, local>, index, f16

// -----

tirx.kernel @smem_broadcast_row(%X: !tirx.buffer<64x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<1x64xf32, shared>
  tirx.mul cta %t, %t, %r : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>, !tirx.buffer<1x64xf32, shared>
  tirx.return
}

// The [1, 64] operand is read with the same 16-byte vectors as the tile (its row index is 0);
// a CTA op writing shared memory first waits for earlier work, then ends with a barrier. The 8
// rounds (8 rows of 16 threads x 4 elements each) are one loop body stepping 512 elements.
// CHECK-LABEL: @smem_broadcast_row
// CHECK-NOT:   cuda.sync_threads
// CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:   %[[C512:.*]] = arith.constant 512 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[C8]] step %{{.*}} {
// CHECK:         arith.muli %[[I]], %[[C512]] : index
// CHECK:         ptx.ld "shared.v4.f32"
// CHECK:         ptx.ld "shared.v4.f32"
// CHECK-COUNT-4: arith.mulf
// CHECK:         ptx.st "shared.v4.f32"
// CHECK-NEXT:  } {cuda.unroll}
// CHECK-NEXT:  cuda.sync_threads
// CHECK-NEXT:  tirx.return

// -----

tirx.kernel @gmem_fma_scalar(%X: !tirx.buffer<4096xf32, global>) -> (%Y: !tirx.buffer<4096xf32, global>) grid [1] threads [256] target "cuda -arch=sm_80" {
  %s = arith.constant 2.0 : f32
  %c = arith.constant 1.0 : f32
  tirx.fma cta %Y, %X, %s, %c : !tirx.buffer<4096xf32, global>, !tirx.buffer<4096xf32, global>, f32, f32
  tirx.return
}

// CHECK-LABEL: @gmem_fma_scalar
// CHECK:       ptx.ld "global.v4.f32"
// CHECK:       arith.mulf %{{.*}}, %s : f32
// CHECK:       arith.addf %{{.*}}, %c : f32
// CHECK:       ptx.st "global.v4.f32"
// CHECK-NOT:   cuda.sync_threads

// -----

tirx.kernel @packed_f16(%X: !tirx.buffer<32x8xf16, global>) -> (%Y: !tirx.buffer<32x8xf16, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<32x8xf16, local>
  tirx.copy warp %t, %X : !tirx.buffer<32x8xf16, local>, !tirx.buffer<32x8xf16, global>
  tirx.add warp %t, %t, %t : !tirx.buffer<32x8xf16, local>, !tirx.buffer<32x8xf16, local>, !tirx.buffer<32x8xf16, local>
  tirx.copy warp %Y, %t : !tirx.buffer<32x8xf16, global>, !tirx.buffer<32x8xf16, local>
  tirx.return
}

// f16 tiles of one type add two elements at a time (add.rn.f16x2), no f32 round trip.
// CHECK-LABEL: @packed_f16
// CHECK:       %[[P:.*]] = cuda.pack %{{.*}}, %{{.*}} : f16, f16 -> vector<2xf16>
// CHECK:       %[[Q:.*]] = cuda.pack %{{.*}}, %{{.*}} : f16, f16 -> vector<2xf16>
// CHECK:       %[[S:.*]] = arith.addf %[[P]], %[[Q]] : vector<2xf16>
// CHECK:       cuda.unpack %[[S]] : vector<2xf16> -> f16, f16
// CHECK-NOT:   arith.extf

// -----

// A cast of an f32 register tile to bf16 (sm_80) converts two elements per cuda.pack
// (cvt.rn.bf16x2.f32, TIRx's cast_vec2), and back to f32 two per cuda.unpack
// (__bfloat1622float2); no scalar truncf / extf.
tirx.kernel @cast_pairs(%X: !tirx.buffer<32x8xf32, global>) -> (%Y: !tirx.buffer<32x8xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %r = tirx.alloc : !tirx.buffer<32x8xf32, local>
  %h = tirx.alloc : !tirx.buffer<32x8xbf16, local>
  tirx.copy warp %r, %X : !tirx.buffer<32x8xf32, local>, !tirx.buffer<32x8xf32, global>
  tirx.cast warp %h, %r : !tirx.buffer<32x8xbf16, local>, !tirx.buffer<32x8xf32, local>
  tirx.cast warp %r, %h : !tirx.buffer<32x8xf32, local>, !tirx.buffer<32x8xbf16, local>
  tirx.copy warp %Y, %r : !tirx.buffer<32x8xf32, global>, !tirx.buffer<32x8xf32, local>
  tirx.return
}

// The register rounds are loops (2 rounds of 4 registers), the array index an affine function
// of the induction variable (the PTX printer expands them: printers/ptx/unroll.py).
// CHECK-LABEL: @cast_pairs
// CHECK-NOT:   arith.truncf
// CHECK:       ptx.ld "global.v4.f32"
// CHECK:       } {cuda.unroll}
// CHECK-NOT:   arith.truncf
// CHECK:       scf.for %[[I:.*]] =
// CHECK:         %[[B:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-NEXT:    cuda.load %{{.*}}, %[[B]] : !tirx.buffer<8xf32, local>, index -> f32
// CHECK-COUNT-2: cuda.pack %{{.*}}, %{{.*}} : f32, f32 -> vector<2xbf16>
// CHECK:         cuda.store %{{.*}}, %[[B]], %{{.*}} : !tirx.buffer<8xbf16, local>, index, bf16
// CHECK:       } {cuda.unroll}
// CHECK-NOT:   arith.extf
// CHECK:       scf.for
// CHECK-COUNT-2: cuda.pack %{{.*}}, %{{.*}} : bf16, bf16 -> vector<2xbf16>
// CHECK:       } {cuda.unroll}
// CHECK-NOT:   arith.extf
// CHECK:       tirx.return
