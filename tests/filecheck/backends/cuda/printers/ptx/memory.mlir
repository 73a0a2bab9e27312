// RUN: tirx-opt %s -t ptx | filecheck %s

// tirx.alloc in shared and local memory (local accessed through ptx ld/st), tirx.cta_id, a scf.while whose result is used after
// it, and two kernels in one module (one .target, two entries).

tirx.kernel @scratch(%X: !tirx.buffer<256xf32, global>) -> (%Y: !tirx.buffer<256xf32, global>) grid [4] threads [64] target "cuda -arch=sm_80" {
  %tile = tirx.alloc : !tirx.buffer<64xf32, shared>
  %regs = tirx.alloc : !tirx.buffer<4xf32, local>
  %cta = tirx.cta_id : index
  %t = cuda.thread_idx x : index
  %x = cuda.load %X, %t : !tirx.buffer<256xf32, global>, index -> f32
  cuda.store %tile, %t, %x : !tirx.buffer<64xf32, shared>, index, f32
  %c0 = arith.constant 0 : index
  %raddr = unrealized_conversion_cast %regs : !tirx.buffer<4xf32, local> to i64
  ptx.st "local.f32" [%raddr], %x : (i64, f32) -> ()
  cuda.sync_threads
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = scf.while (%i = %c1) : (index) -> index {
    %more = arith.cmpi slt, %i, %c64 : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%j: index):
    %k = arith.shli %j, %c1 : index
    scf.yield %k : index
  }
  %last = arith.subi %n, %c1 : index
  %y = cuda.load %tile, %last : !tirx.buffer<64xf32, shared>, index -> f32
  %r = ptx.ld "local.f32" [%raddr] : (i64) -> f32
  %s = arith.addf %y, %r : f32
  cuda.store %Y, %cta, %s : !tirx.buffer<256xf32, global>, index, f32
  tirx.return
}

tirx.kernel @second() grid [1] threads [32] target "cuda -arch=sm_80" {
  tirx.return
}

// CHECK:      .visible .entry scratch(
// CHECK:      .shared .align 16 .b8 smem_tile[256];
// CHECK-NEXT: .local .align 16 .b8 local_regs[16];
// CHECK:      mov.u32 [[TILE:%r[0-9]+]], smem_tile;
// CHECK-NEXT: mov.u64 [[REGS:%rd[0-9]+]], local_regs;
// CHECK-NEXT: mov.u32 {{%r[0-9]+}}, %ctaid.x;
// CHECK:      st.shared.f32
// CHECK:      st.local.f32 [[[REGS]]], {{%f[0-9]+}};
// CHECK:      mov.b64 [[I:%rd[0-9]+]], [[ONE:%rd[0-9]+]];
// CHECK-NEXT: $L__while[[W:[0-9]+]]:
// CHECK-NEXT: setp.lt.s64 [[MORE:%p[0-9]+]], [[I]], {{%rd[0-9]+}};
// CHECK-NEXT: mov.b64 [[N:%rd[0-9]+]], [[I]];
// CHECK-NEXT: mov.b64 [[J:%rd[0-9]+]], [[I]];
// CHECK-NEXT: @![[MORE]] bra $L__while_end[[WE:[0-9]+]];
// CHECK-NEXT: cvt.u32.u64 [[AMT:%r[0-9]+]], [[ONE]];
// CHECK-NEXT: shl.b64 [[K:%rd[0-9]+]], [[J]], [[AMT]];
// CHECK-NEXT: mov.b64 [[I]], [[K]];
// CHECK-NEXT: bra.uni $L__while[[W]];
// CHECK-NEXT: $L__while_end[[WE]]:
// CHECK-NEXT: sub.s64 {{%rd[0-9]+}}, [[N]], [[ONE]];
// CHECK:      ld.shared.f32
// CHECK:      ld.local.f32 {{%f[0-9]+}}, [[[REGS]]];
// CHECK:      .visible .entry second(
