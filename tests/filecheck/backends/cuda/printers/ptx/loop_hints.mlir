// RUN: tirx-opt %s -t ptx | filecheck %s --check-prefix=PTX
// RUN: tirx-opt %s -t cuda | filecheck %s --check-prefix=CUDA
// A loop marked cuda.nounroll (backends/cuda/loop_hints.py) keeps its loop: .pragma "nounroll"
// in the PTX loop's header, #pragma unroll 1 before the C++ for; an unmarked loop has neither;
// one marked cuda.unroll (dispatch's rolled rounds) gets #pragma unroll in C++ and is a plain
// counted loop in PTX (ptxas decides).

tirx.kernel @hints(%X: !tirx.buffer<64xi32, global>) -> (%Y: !tirx.buffer<64xi32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lane = cuda.lane_id : index
  %x = cuda.load %X, %lane : !tirx.buffer<64xi32, global>, index -> i32
  %a = scf.for %i = %c0 to %c2 step %c1 iter_args(%p = %x) -> (i32) {
    %s = arith.addi %p, %p : i32
    scf.yield %s : i32
  } {cuda.nounroll}
  %b = scf.for %j = %c0 to %c2 step %c1 iter_args(%q = %a) -> (i32) {
    %t = arith.muli %q, %q : i32
    scf.yield %t : i32
  }
  %c = scf.for %k = %c0 to %c2 step %c1 iter_args(%r = %b) -> (i32) {
    %u = arith.subi %r, %x : i32
    scf.yield %u : i32
  } {cuda.unroll}
  cuda.store %Y, %lane, %c : !tirx.buffer<64xi32, global>, index, i32
  tirx.return
}

// PTX:       $L__for[[A:[0-9]+]]:
// PTX-NEXT:    .pragma "nounroll";
// PTX-NEXT:    setp.ge.s64
// PTX:         add.s32
// PTX:       $L__for[[B:[0-9]+]]:
// PTX-NEXT:    setp.ge.s64
// PTX:         mul.lo.s32
// PTX:       $L__for[[C:[0-9]+]]:
// PTX-NEXT:    setp.ge.s64
// PTX:         sub.s32

// CUDA:      #pragma unroll 1
// CUDA-NEXT: for (
// CUDA-NOT:  #pragma
// CUDA:      for (
// CUDA-NOT:  #pragma unroll 1
// CUDA:      #pragma unroll
// CUDA-NEXT: for (
