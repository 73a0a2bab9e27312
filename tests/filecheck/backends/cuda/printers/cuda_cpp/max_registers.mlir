// RUN: tirx-opt %s -t cuda | filecheck %s

// cuda.max_registers prints as __maxnreg__(R) in place of __launch_bounds__ (nvcc refuses both
// on one kernel); setmaxnreg as inline PTX.

tirx.kernel @roles(%Out: !tirx.buffer<256xi32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" attributes {cuda.max_registers = 80 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi eq, %wg, %c0 : index
  scf.if %consumer {
    ptx.setmaxnreg "inc" 136
  } else {
    ptx.setmaxnreg "dec" 24
  }
  tirx.return
}

// CHECK:     extern "C" __global__ void __maxnreg__(80)
// CHECK-NOT: __launch_bounds__
// CHECK:     asm volatile("setmaxnreg.inc.sync.aligned.u32 136;" : : : "memory");
// CHECK:     asm volatile("setmaxnreg.dec.sync.aligned.u32 24;" : : : "memory");
