// RUN: tirx-opt %s -t ptx | filecheck %s --check-prefix=PTX
// RUN: tirx-opt %s -t cuda | filecheck %s --check-prefix=CUDA
// A rolled register round (printers/ptx/unroll.py): the loop indexes the thread's array with
// 2 x its induction variable + 1. -t ptx expands it, each element a named register (no loop,
// no .local array); -t cuda keeps the loop over a C array under #pragma unroll. In the expanded
// rounds the load of acc[2i+1] reads the register its store was given (local_registers.py:
// deferred stores), and nothing reads acc after the rounds: no mov of an element at all.
tirx.kernel @rounds(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = cuda.thread_idx x : index
  %base = arith.muli %t, %c8 : index
  %acc = tirx.alloc : !tirx.buffer<8xf32, local>
  scf.for %i = %c0 to %c4 step %c1 {
    %e = arith.muli %i, %c2 : index
    %k = arith.addi %e, %c1 : index
    %g = arith.addi %base, %e : index
    %x = cuda.load %X, %g : !tirx.buffer<1024xf32, global>, index -> f32
    %y = arith.addf %x, %x : f32
    cuda.store %acc, %k, %y : !tirx.buffer<8xf32, local>, index, f32
    %v = cuda.load %acc, %k : !tirx.buffer<8xf32, local>, index -> f32
    cuda.store %Y, %g, %v : !tirx.buffer<1024xf32, global>, index, f32
  } {cuda.unroll}
  tirx.return
}

// PTX:     .reg .f32 %acc_<8>;
// PTX-NOT: .local
// PTX-NOT: bra
// PTX-NOT: %acc_{{[0-9]}}
// PTX:     add.rn.f32 [[Y0:%f[0-9]+]], [[X0:%f[0-9]+]], [[X0]];
// PTX-NEXT: mad.lo.s64
// PTX-NEXT: st.global.f32 [{{%rd[0-9]+}}], [[Y0]];
// PTX:     add.rn.f32 [[Y1:%f[0-9]+]], [[X1:%f[0-9]+]], [[X1]];
// PTX-NEXT: mad.lo.s64
// PTX-NEXT: st.global.f32 [{{%rd[0-9]+}}], [[Y1]];
// PTX:     add.rn.f32 [[Y2:%f[0-9]+]], [[X2:%f[0-9]+]], [[X2]];
// PTX-NEXT: mad.lo.s64
// PTX-NEXT: st.global.f32 [{{%rd[0-9]+}}], [[Y2]];
// PTX:     add.rn.f32 [[Y3:%f[0-9]+]], [[X3:%f[0-9]+]], [[X3]];
// PTX-NEXT: mad.lo.s64
// PTX-NEXT: st.global.f32 [{{%rd[0-9]+}}], [[Y3]];
// PTX-NOT: %acc_{{[0-9]}}
// PTX-NOT: bra
// PTX:     ret;

// CUDA:      float acc[8];
// CUDA:      #pragma unroll
// CUDA-NEXT: for (long long i = 0; i < 4; i += 1) {
// CUDA:        acc[
// CUDA:      }
