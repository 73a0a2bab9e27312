// RUN: tirx-opt %s -t ptx | filecheck %s
// SASS: USETMAXREG.TRY_ALLOC.CTAPOOL USETMAXREG.DEALLOC.CTAPOOL

// A kernel that fixes its registers per thread at launch (cuda.max_registers, what
// cuda-set-max-nreg sets) prints .maxnreg after .reqntid: ptxas honours setmaxnreg only then
// (else advisory C7508, the instruction ignored). Warpgroup 0 takes registers from the CTA's
// pool, warpgroup 1 gives them back: 24 + 136 = 2 * 80.

tirx.kernel @roles(%Out: !tirx.buffer<256xi32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" attributes {cuda.max_registers = 80 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi eq, %wg, %c0 : index
  %v = arith.index_cast %wg : index to i32
  scf.if %consumer {
    ptx.setmaxnreg "inc" 136
    %p = cuda.address %Out, %t : !tirx.buffer<256xi32, global>, index -> i64
    ptx.st "global.u32" [%p], %v : (i64, i32) -> ()
  } else {
    ptx.setmaxnreg "dec" 24
  }
  tirx.return
}

// CHECK:      .visible .entry roles(
// CHECK:      .reqntid 256, 1, 1
// CHECK-NEXT: .maxnreg 80
// CHECK-NEXT: {
// CHECK:      setmaxnreg.inc.sync.aligned.u32 136;
// CHECK:      setmaxnreg.dec.sync.aligned.u32 24;
