// Vector add with 128-bit accesses: each thread loads four floats of A and B with one
// ld.global.nc.v4.f32 each, adds them, and writes them with one st.global.v4.f32.
//   tirx-opt -t cuda examples/cuda/vector_add.mlir
tirx.kernel @vector_add(%A: !tirx.buffer<65536xf32, global>, %B: !tirx.buffer<65536xf32, global>)
    -> (%C: !tirx.buffer<65536xf32, global>) grid [64] threads [256] target "cuda -arch=sm_80" {
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %block = arith.muli %b, %c256 : index
  %thread = arith.addi %block, %t : index
  %i = arith.muli %thread, %c4 : index
  %pa = cuda.address %A, %i : !tirx.buffer<65536xf32, global>, index -> i64
  %pb = cuda.address %B, %i : !tirx.buffer<65536xf32, global>, index -> i64
  %pc = cuda.address %C, %i : !tirx.buffer<65536xf32, global>, index -> i64
  %a:4 = ptx.ld "global.nc.v4.f32" [%pa] : (i64) -> (f32, f32, f32, f32)
  %v:4 = ptx.ld "global.nc.v4.f32" [%pb] : (i64) -> (f32, f32, f32, f32)
  %s0 = arith.addf %a#0, %v#0 : f32
  %s1 = arith.addf %a#1, %v#1 : f32
  %s2 = arith.addf %a#2, %v#2 : f32
  %s3 = arith.addf %a#3, %v#3 : f32
  ptx.st "global.v4.f32" [%pc], {%s0, %s1, %s2, %s3} : (i64, f32, f32, f32, f32) -> ()
  tirx.return
}
