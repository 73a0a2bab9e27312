// RUN: tirx-opt %s --split-input-file -t ptx | filecheck %s
// SASS: SHFL.BFLY SHFL.IDX VOTE ATOMG.E.ADD.F32.FTZ.RN

// cuda ops as the PTX nvcc emits for them (printers/ptx/cuda_ops.py has the table), sm_80.

tirx.kernel @warp(%X: !tirx.buffer<256xf32, global>, %L: !tirx.buffer<256xi64, global>) -> (%Y: !tirx.buffer<256xf32, global>, %N: !tirx.buffer<256xi32, global>) grid [2, 2] threads [64, 2] target "cuda -arch=sm_80" {
  %full = arith.constant -1 : i32
  %t = cuda.thread_idx y : index
  %b = cuda.block_idx x : index
  %g = cuda.grid_dim y : index
  %n = cuda.block_dim x : index
  %lane = cuda.lane_id : index
  %w = cuda.warp_id : index
  %v = cuda.load %X, %lane cache cs : !tirx.buffer<256xf32, global>, index -> f32
  %l64 = cuda.load %L, %lane evict evict_last : !tirx.buffer<256xi64, global>, index -> i64
  %one = arith.constant 1 : i32
  %s = cuda.shfl_sync xor %full, %v, %one width 16 : i32, f32, i32 -> f32
  %u = cuda.shfl_sync up %full, %v, %one : i32, f32, i32 -> f32
  %d = cuda.shfl_sync idx %full, %l64, %one : i32, i64, i32 -> i64
  %sum = cuda.warp_reduce sum %full, %s width 4 : i32, f32 -> f32
  %pos = arith.cmpf ogt, %sum, %u : f32
  %ball = cuda.vote ballot %full, %pos : i32, i1 -> i32
  %all = cuda.vote all %full, %pos : i32, i1 -> i1
  %am = cuda.activemask : i32
  %cnt = cuda.sync_threads_vote count %pos : i1 -> i32
  %any = cuda.sync_threads_vote or %pos : i1 -> i32
  cuda.sync_threads
  cuda.sync_warp %am : i32
  %old = cuda.atomic add %Y, %lane, %sum scope gpu : !tirx.buffer<256xf32, global>, index, f32 -> f32
  %oi = cuda.atomic max %N, %lane, %ball : !tirx.buffer<256xi32, global>, index, i32 -> i32
  %oc = cuda.atomic_cas %N, %w, %ball, %cnt scope cta : !tirx.buffer<256xi32, global>, index, i32, i32 -> i32
  cuda.fence gpu
  cuda.fence cta
  cuda.fence sys
  cuda.store %Y, %lane, %old cache cg : !tirx.buffer<256xf32, global>, index, f32
  cuda.store %L, %lane, %d : !tirx.buffer<256xi64, global>, index, i64
  tirx.return
}

// CHECK:      .version 7.4
// CHECK:      .reqntid 64, 2, 1
// CHECK:      mov.b32 [[FULL:%r[0-9]+]], -1;
// CHECK-NEXT: mov.u32 {{%r[0-9]+}}, %tid.y;
// CHECK:      mov.u32 {{%r[0-9]+}}, %ctaid.x;
// CHECK:      mov.u32 {{%r[0-9]+}}, %nctaid.y;
// CHECK:      mov.u32 {{%r[0-9]+}}, %ntid.x;
// CHECK:      mov.u32 {{%r[0-9]+}}, %laneid;

// warp_id: the thread's linear index in its 64x2 block, over 32.
// CHECK:      mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK-NEXT: mov.u32 [[TY:%r[0-9]+]], %tid.y;
// CHECK-NEXT: mad.lo.s32 [[TID]], [[TY]], 64, [[TID]];
// CHECK-NEXT: shr.u32 [[TID]], [[TID]], 5;
// CHECK:      ld.global.cs.f32 [[V:%f[0-9]+]],
// CHECK:      ld.global.L1::evict_last.b64 [[L:%rd[0-9]+]],

// shfl.sync's c operand: (32 - width) << 8, | 31 except for up.
// CHECK:      shfl.sync.bfly.b32 [[S:%f[0-9]+]], [[V]], [[ONE:%r[0-9]+]], 4127, [[FULL]];
// CHECK-NEXT: shfl.sync.up.b32 {{%f[0-9]+}}, [[V]], [[ONE]], 0, [[FULL]];

// A 64-bit shuffle is two 32-bit ones.
// CHECK-NEXT: mov.b64 {[[LO:%r[0-9]+]], [[HI:%r[0-9]+]]}, [[L]];
// CHECK-NEXT: shfl.sync.idx.b32 [[OLO:%r[0-9]+]], [[LO]], [[ONE]], 31, [[FULL]];
// CHECK-NEXT: shfl.sync.idx.b32 [[OHI:%r[0-9]+]], [[HI]], [[ONE]], 31, [[FULL]];
// CHECK-NEXT: mov.b64 {{%rd[0-9]+}}, {[[OLO]], [[OHI]]};

// warp_reduce over width 4: a butterfly at offsets 2 and 1, inside 4-lane segments.
// CHECK-NEXT: mov.f32 [[ACC:%f[0-9]+]], [[S]];
// CHECK-NEXT: shfl.sync.bfly.b32 [[O1:%f[0-9]+]], [[ACC]], 2, 7199, [[FULL]];
// CHECK-NEXT: add.rn.f32 [[ACC]], [[ACC]], [[O1]];
// CHECK-NEXT: shfl.sync.bfly.b32 [[O2:%f[0-9]+]], [[ACC]], 1, 7199, [[FULL]];
// CHECK-NEXT: add.rn.f32 [[ACC]], [[ACC]], [[O2]];
// CHECK-NEXT: setp.gt.f32 [[POS:%p[0-9]+]], [[ACC]], {{%f[0-9]+}};
// CHECK-NEXT: vote.sync.ballot.b32 [[BALL:%r[0-9]+]], [[POS]], [[FULL]];
// CHECK-NEXT: vote.sync.all.pred {{%p[0-9]+}}, [[POS]], [[FULL]];
// CHECK-NEXT: activemask.b32 [[AM:%r[0-9]+]];
// CHECK-NEXT: bar.red.popc.u32 [[CNT:%r[0-9]+]], 0, [[POS]];
// CHECK-NEXT: bar.red.or.pred [[ANY:%p[0-9]+]], 0, [[POS]];
// CHECK-NEXT: selp.u32 {{%r[0-9]+}}, 1, 0, [[ANY]];
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: bar.warp.sync [[AM]];
// CHECK-NEXT: mad.lo.s64 [[A1:%rd[0-9]+]], {{%rd[0-9]+}}, 4, {{%rd[0-9]+}};
// CHECK-NEXT: atom.gpu.global.add.f32 [[OLD:%f[0-9]+]], [[[A1]]], [[ACC]];
// CHECK-NEXT: mad.lo.s64 [[A2:%rd[0-9]+]], {{%rd[0-9]+}}, 4, {{%rd[0-9]+}};
// CHECK-NEXT: atom.global.max.s32 {{%r[0-9]+}}, [[[A2]]], [[BALL]];
// CHECK-NEXT: mad.lo.s64 [[A3:%rd[0-9]+]], {{%rd[0-9]+}}, 4, {{%rd[0-9]+}};
// CHECK-NEXT: atom.cta.global.cas.b32 {{%r[0-9]+}}, [[[A3]]], [[BALL]], [[CNT]];
// CHECK-NEXT: membar.gl;
// CHECK-NEXT: membar.cta;
// CHECK-NEXT: membar.sys;
// CHECK-NEXT: mad.lo.s64 [[A4:%rd[0-9]+]], {{%rd[0-9]+}}, 4, {{%rd[0-9]+}};
// CHECK-NEXT: st.global.cg.f32 [[[A4]]], [[OLD]];
// CHECK:      st.global.b64

// -----

tirx.kernel @math_and_shared(%X: !tirx.buffer<256xf32, global>) -> (%Y: !tirx.buffer<256xf16, global>, %Z: !tirx.buffer<256xbf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %lane = cuda.lane_id : index
  %x = cuda.load %X, %lane : !tirx.buffer<256xf32, global>, index -> f32
  %e = cuda.fast exp %x : f32 -> f32
  %r = cuda.fast rsqrt %e : f32 -> f32
  %t = cuda.fast tanh %r : f32 -> f32
  %q = cuda.fdividef %t, %x : f32, f32 -> f32
  %h2 = cuda.pack %q, %x : f32, f32 -> vector<2xf16>
  %lo, %hi = cuda.unpack %h2 : vector<2xf16> -> f32, f32
  %b = cuda.cvt %lo round rz : f32 -> bf16
  %bf = cuda.cvt %b : bf16 -> f32
  %i = cuda.cvt %hi round rd : f32 -> i32
  %sh = cuda.shared_alloc align 16 : !tirx.buffer<128xf16, shared>
  %dyn = cuda.dynamic_shared offset 256 align 128 : !tirx.buffer<64xf32, shared.dyn>
  %c0 = arith.constant 0 : index
  cuda.store %sh, %c0, %h2 : !tirx.buffer<128xf16, shared>, index, vector<2xf16>
  cuda.sync_threads
  %back = cuda.load %sh, %lane : !tirx.buffer<128xf16, shared>, index -> f16
  cuda.store %dyn, %lane, %bf : !tirx.buffer<64xf32, shared.dyn>, index, f32
  cuda.store %Y, %lane, %back : !tirx.buffer<256xf16, global>, index, f16
  cuda.store %Z, %lane, %b : !tirx.buffer<256xbf16, global>, index, bf16
  %clk = cuda.clock64 : i64
  %ns = arith.constant 100 : i32
  cuda.nanosleep %ns : i32
  %big = arith.constant 1000000 : i64
  %late = arith.cmpi sgt, %clk, %big : i64
  scf.if %late {
    cuda.trap
  }
  tirx.return
}

// CHECK-LABEL: .extern .shared .align 128 .b8 tirx_dynamic_smem[];
// CHECK:      .visible .entry math_and_shared(
// CHECK:      .shared .align 16 .b8 smem_sh[256];
// CHECK:      ld.global.f32 [[X:%f[0-9]+]],

// exp(x) = 2^(x log2 e)
// CHECK-NEXT: mul.f32 [[XS:%f[0-9]+]], [[X]], 0f3FB8AA3B;
// CHECK-NEXT: ex2.approx.f32 [[E:%f[0-9]+]], [[XS]];
// CHECK-NEXT: rsqrt.approx.f32 [[R:%f[0-9]+]], [[E]];
// CHECK-NEXT: tanh.approx.f32 [[T:%f[0-9]+]], [[R]];
// CHECK-NEXT: div.approx.f32 [[Q:%f[0-9]+]], [[T]], [[X]];

// pack: the high half is cvt's first source.
// CHECK-NEXT: cvt.rn.f16x2.f32 [[H2:%r[0-9]+]], [[X]], [[Q]];
// CHECK-NEXT: mov.b32 {[[HLO:%rs[0-9]+]], [[HHI:%rs[0-9]+]]}, [[H2]];
// CHECK-NEXT: cvt.f32.f16 [[LO:%f[0-9]+]], [[HLO]];
// CHECK-NEXT: cvt.f32.f16 [[HI:%f[0-9]+]], [[HHI]];
// CHECK-NEXT: cvt.rz.bf16.f32 [[B:%rs[0-9]+]], [[LO]];

// bf16 -> f32 is exact: the bf16 bits are the high half of the f32.
// CHECK-NEXT: cvt.u32.u16 [[W:%r[0-9]+]], [[B]];
// CHECK-NEXT: shl.b32 [[W]], [[W]], 16;
// CHECK-NEXT: mov.b32 [[BF:%f[0-9]+]], [[W]];
// CHECK-NEXT: cvt.rmi.s32.f32 {{%r[0-9]+}}, [[HI]];
// CHECK-NEXT: mov.u32 [[SH:%r[0-9]+]], smem_sh;
// CHECK-NEXT: mov.u32 [[DYN:%r[0-9]+]], tirx_dynamic_smem;
// CHECK-NEXT: add.u32 [[DYN]], [[DYN]], 256;
// CHECK:      mad.lo.s32 [[SA:%r[0-9]+]], {{%r[0-9]+}}, 2, [[SH]];
// CHECK-NEXT: st.shared.b32 [[[SA]]], [[H2]];
// CHECK-NEXT: bar.sync 0;
// CHECK:      ld.shared.b16 [[BACK:%rs[0-9]+]], [{{%r[0-9]+}}];
// CHECK:      mad.lo.s32 [[DA:%r[0-9]+]], {{%r[0-9]+}}, 4, [[DYN]];
// CHECK-NEXT: st.shared.f32 [[[DA]]], [[BF]];
// CHECK:      st.global.b16 [{{%rd[0-9]+}}], [[BACK]];
// CHECK:      st.global.b16 [{{%rd[0-9]+}}], [[B]];
// CHECK-NEXT: mov.u64 [[CLK:%rd[0-9]+]], %clock64;
// CHECK-NEXT: mov.b32 [[NS:%r[0-9]+]], 100;
// CHECK-NEXT: nanosleep.u32 [[NS]];
// CHECK:      setp.gt.s64 [[LATE:%p[0-9]+]], [[CLK]], {{%rd[0-9]+}};
// CHECK-NEXT: @![[LATE]] bra $L__if_end[[N:[0-9]+]];
// CHECK-NEXT: trap;
// CHECK-NEXT: $L__if_end[[N]]:

// -----

// Narrow types: i8 moves through a b16 register as u8; f16 arithmetic is .f16 on b16 registers
// (max.NaN needs sm_80); vector<4xf16> is two packed b32 lanes.
tirx.kernel @narrow(%X: !tirx.buffer<64xi8, global>, %H: !tirx.buffer<64xf16, global>) -> (%Y: !tirx.buffer<64xi8, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %x = cuda.load %X, %c0 : !tirx.buffer<64xi8, global>, index -> i8
  cuda.store %Y, %c0, %x : !tirx.buffer<64xi8, global>, index, i8
  %h = cuda.load %H, %c0 : !tirx.buffer<64xf16, global>, index -> f16
  %m = arith.maximumf %h, %h : f16
  %s = arith.addf %m, %h : f16
  %v = cuda.load %H, %c0 : !tirx.buffer<64xf16, global>, index -> vector<4xf16>
  cuda.store %H, %c0, %v : !tirx.buffer<64xf16, global>, index, vector<4xf16>
  cuda.store %H, %c0, %s : !tirx.buffer<64xf16, global>, index, f16
  tirx.return
}

// CHECK-LABEL: .visible .entry narrow(
// CHECK:      ld.global.u8 [[X:%rs[0-9]+]],
// CHECK:      st.global.u8 [{{%rd[0-9]+}}], [[X]];
// CHECK:      ld.global.b16 [[H:%rs[0-9]+]],
// CHECK-NEXT: max.NaN.f16 [[M:%rs[0-9]+]], [[H]], [[H]];
// CHECK-NEXT: add.rn.f16 [[S:%rs[0-9]+]], [[M]], [[H]];
// CHECK:      ld.global.v2.b32 {[[V0:%r[0-9]+]], [[V1:%r[0-9]+]]},
// CHECK:      st.global.v2.b32 [{{%rd[0-9]+}}], {[[V0]], [[V1]]};
// CHECK:      st.global.b16 [{{%rd[0-9]+}}], [[S]];
