// One 16x8x16 tensor-core tile, D = A * B, with A 16x16 f16 row-major and B given as B^T, an
// 8x16 f16 row-major array (the "col" operand mma.sync wants). One warp stages A and B in
// shared memory with half2 copies, loads its fragments with ldmatrix (x4 for A, x2 for B: lane
// l points at row l % 16 / l % 8 and column 8 * (l / 16) / 8 * ((l / 8) % 2)), runs one
// mma.sync.m16n8k16 with a zero accumulator and stores D (16x8 f32): lane l holds rows
// l / 4 and l / 4 + 8, columns 2 * (l % 4) and 2 * (l % 4) + 1.
//   tirx-opt -t cuda examples/cuda/mma_tile.mlir
tirx.kernel @mma_tile(%A: !tirx.buffer<256xf16, global>, %Bt: !tirx.buffer<128xf16, global>)
    -> (%D: !tirx.buffer<128xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %sA = cuda.shared_alloc align 128 : !tirx.buffer<16x16xf16, shared>
  %sB = cuda.shared_alloc align 128 : !tirx.buffer<8x16xf16, shared>
  %lane = cuda.thread_idx x : index
  %l2 = arith.muli %lane, %c2 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %off = arith.muli %k, %c64 : index
    %i = arith.addi %off, %l2 : index
    %a = cuda.load %A, %i : !tirx.buffer<256xf16, global>, index -> vector<2xf16>
    cuda.store %sA, %i, %a : !tirx.buffer<16x16xf16, shared>, index, vector<2xf16>
  }
  scf.for %k = %c0 to %c2 step %c1 {
    %off = arith.muli %k, %c64 : index
    %i = arith.addi %off, %l2 : index
    %b = cuda.load %Bt, %i : !tirx.buffer<128xf16, global>, index -> vector<2xf16>
    cuda.store %sB, %i, %b : !tirx.buffer<8x16xf16, shared>, index, vector<2xf16>
  }
  cuda.sync_threads
  %arow = arith.remui %lane, %c16 : index
  %ahalf = arith.divui %lane, %c16 : index
  %acol = arith.muli %ahalf, %c8 : index
  %arow16 = arith.muli %arow, %c16 : index
  %aidx = arith.addi %arow16, %acol : index
  %pa = cuda.address %sA, %aidx : !tirx.buffer<16x16xf16, shared>, index -> i32
  %fa:4 = ptx.ldmatrix "x4.shared::cta" [%pa] : (i32) -> (i32, i32, i32, i32)
  %brow = arith.remui %lane, %c8 : index
  %bq = arith.divui %lane, %c8 : index
  %bhalf = arith.remui %bq, %c2 : index
  %bcol = arith.muli %bhalf, %c8 : index
  %brow16 = arith.muli %brow, %c16 : index
  %bidx = arith.addi %brow16, %bcol : index
  %pb = cuda.address %sB, %bidx : !tirx.buffer<8x16xf16, shared>, index -> i32
  %fb:2 = ptx.ldmatrix "x2.shared::cta" [%pb] : (i32) -> (i32, i32)
  %d:4 = ptx.mma_sync "m16n8k16.f32.f16.f16.f32" {%fa#0, %fa#1, %fa#2, %fa#3}, {%fb#0, %fb#1}, {%zero, %zero, %zero, %zero} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %g = arith.divui %lane, %c4 : index
  %t = arith.remui %lane, %c4 : index
  %t2 = arith.muli %t, %c2 : index
  %r0 = arith.muli %g, %c8 : index
  %i0 = arith.addi %r0, %t2 : index
  %i1 = arith.addi %i0, %c1 : index
  %i2 = arith.addi %i0, %c64 : index
  %i3 = arith.addi %i2, %c1 : index
  cuda.store %D, %i0, %d#0 : !tirx.buffer<128xf32, global>, index, f32
  cuda.store %D, %i1, %d#1 : !tirx.buffer<128xf32, global>, index, f32
  cuda.store %D, %i2, %d#2 : !tirx.buffer<128xf32, global>, index, f32
  cuda.store %D, %i3, %d#3 : !tirx.buffer<128xf32, global>, index, f32
  tirx.return
}
