// Causal attention scores on sm_80 tensor cores: S = (Q @ K^T) / sqrt(64) with S[q, k] = -3e38
// where the key k comes after the query q. Q and K are 128x64 f16 (one head), S 128x128 f32.
// One CTA of 4 warps: Q and K are staged in shared memory (K as is, [keys, 64]: the gemm reads
// it transposed, transpose_b), the scores accumulate in a 128x128 register tile (ldmatrix +
// mma.sync.m16n8k16, 64x64 per warp), the scale and the causal select work on the registers.
// The 128-byte rows of the shared tiles swap 16-byte chunk c with c ^ (row % 8)
// (swizzle(3,3,3)), so each ldmatrix phase of 8 rows reads 8 distinct bank groups.
//
//   tirx-run examples/cuda/tile/attention_scores.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/attention_scores.mlir -t cuda
tirx.kernel @attention_scores(%Q: !tirx.buffer<128x64xf16, global>, %K: !tirx.buffer<128x64xf16, global>)
    -> (%S: !tirx.buffer<128x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %scale = arith.constant 0.125 : f32
  %masked = arith.constant -3.0e+38 : f32
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  %sq = tirx.alloc : !tirx.buffer<128x64xf16, shared, swizzle(3,3,3) S[128,64]>
  %sk = tirx.alloc : !tirx.buffer<128x64xf16, shared, swizzle(3,3,3) S[128,64]>
  tirx.copy cta %sq, %Q : !tirx.buffer<128x64xf16, shared, swizzle(3,3,3) S[128,64]>, !tirx.buffer<128x64xf16, global>
  tirx.copy cta %sk, %K : !tirx.buffer<128x64xf16, shared, swizzle(3,3,3) S[128,64]>, !tirx.buffer<128x64xf16, global>
  tirx.gemm cta %acc, %sq, %sk transpose_b : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared, swizzle(3,3,3) S[128,64]>, !tirx.buffer<128x64xf16, shared, swizzle(3,3,3) S[128,64]>
  tirx.mul cta %acc, %acc, %scale : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x128xf32, local>, f32
  tirx.select cta %acc, %acc, %masked where (d0, d1) : (d0 - d1 >= 0) : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x128xf32, local>, f32
  tirx.copy cta %S, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
