// ARGS: --disable-verify -t ptx
// EXPECT-ERROR: [ptx-print] threads [8, 2] (16 threads) is not a whole number of warps; ptx.mma_sync needs all 32 lanes of each warp
// Unverified IR: the printer checks the launch a collective instruction needs itself.
tirx.kernel @k(%D: !tirx.buffer<64xf32, global>) grid [1] threads [8, 2] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  %d:4 = ptx.mma_sync "m16n8k16.f32.f16.f16.f32" {%z, %z, %z, %z}, {%z, %z}, {%zf, %zf, %zf, %zf} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  cuda.store %D, %c0, %d#0 : !tirx.buffer<64xf32, global>, index, f32
  tirx.return
}
