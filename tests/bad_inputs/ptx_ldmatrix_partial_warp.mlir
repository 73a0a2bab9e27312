// ARGS: -t ptx
// EXPECT-ERROR: 'ptx.ldmatrix' op threads [48] is not a whole number of warps; ptx.ldmatrix needs all 32 lanes of each warp
// ldmatrix is executed by all 32 lanes of a warp together; 48 threads end in a half warp.
tirx.kernel @k(%A: !tirx.buffer<32xi32, global>) grid [1] threads [48] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %s = cuda.shared_alloc align 128 : !tirx.buffer<16x16xf16, shared>
  %p = cuda.address %s, %c0 : !tirx.buffer<16x16xf16, shared>, index -> i32
  %r = ptx.ldmatrix "x1.shared::cta" [%p] : (i32) -> i32
  cuda.store %A, %c0, %r : !tirx.buffer<32xi32, global>, index, i32
  tirx.return
}
