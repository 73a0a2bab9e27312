// RUN: tirx-opt %s --split-input-file -t ptx | filecheck %s

// arith ops as PTX instructions: the PTX type follows the op's signedness and the operands'
// width (index is 64-bit); the signed rounding divisions are fixed sequences (printers/ptx/
// arith.py states the rule; tests/backends/cuda/printers/ptx/test_arith_semantics.py runs them).

tirx.kernel @ints(%X: !tirx.buffer<64xi32, global>) -> (%Y: !tirx.buffer<64xi32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %a = cuda.load %X, %c0 : !tirx.buffer<64xi32, global>, index -> i32
  %b = arith.constant -3 : i32
  %add = arith.addi %a, %b : i32
  %sub = arith.subi %a, %b : i32
  %mul = arith.muli %a, %b : i32
  %ds = arith.divsi %a, %b : i32
  %du = arith.divui %a, %b : i32
  %rs = arith.remsi %a, %b : i32
  %ru = arith.remui %a, %b : i32
  %fd = arith.floordivsi %a, %b : i32
  %cd = arith.ceildivsi %a, %b : i32
  %cu = arith.ceildivui %a, %b : i32
  %sh = arith.shli %a, %b : i32
  %sr = arith.shrsi %a, %b : i32
  %su = arith.shrui %a, %b : i32
  %mn = arith.minsi %a, %b : i32
  %mx = arith.maxui %a, %b : i32
  %and = arith.andi %a, %b : i32
  %lt = arith.cmpi slt, %a, %b : i32
  %ult = arith.cmpi ult, %a, %b : i32
  %sel = arith.select %lt, %a, %b : i32
  %wide = arith.extsi %a : i32 to i64
  %zext = arith.extui %a : i32 to i64
  %c5 = arith.constant 5 : i64
  %sh64 = arith.shli %wide, %c5 : i64
  %narrow = arith.trunci %sh64 : i64 to i32
  %idx = arith.index_cast %narrow : i32 to index
  %bit = arith.trunci %a : i32 to i1
  %ext = arith.extui %bit : i1 to i32
  cuda.store %Y, %idx, %fd : !tirx.buffer<64xi32, global>, index, i32
  tirx.return
}

// CHECK:      ld.global.b32 [[A:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-NEXT: mov.b32 [[B:%r[0-9]+]], -3;
// CHECK-NEXT: add.s32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: sub.s32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: mul.lo.s32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: div.s32 {{%r[0-9]+}}, [[A]], [[B]];
// divui / remui by the constant -3 (2^32 - 3 unsigned): the multiply-high of
// constant_division.py, not div.u32 (ptxas's reciprocal sequence)
// CHECK-NEXT: mul.hi.u32 [[T:%r[0-9]+]], [[A]], 4;
// CHECK-NEXT: sub.s32 [[U:%r[0-9]+]], [[A]], [[T]];
// CHECK-NEXT: shr.u32 [[U]], [[U]], 1;
// CHECK-NEXT: add.s32 [[U]], [[U]], [[T]];
// CHECK-NEXT: shr.u32 {{%r[0-9]+}}, [[U]], 31;
// CHECK-NEXT: rem.s32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: mul.hi.u32 [[T2:%r[0-9]+]], [[A]], 4;
// CHECK-NEXT: sub.s32 [[U2:%r[0-9]+]], [[A]], [[T2]];
// CHECK-NEXT: shr.u32 [[U2]], [[U2]], 1;
// CHECK-NEXT: add.s32 [[U2]], [[U2]], [[T2]];
// CHECK-NEXT: shr.u32 [[Q2:%r[0-9]+]], [[U2]], 31;
// CHECK-NEXT: mul.lo.s32 [[Q2]], [[Q2]], 0xFFFFFFFDU;
// CHECK-NEXT: sub.s32 {{%r[0-9]+}}, [[A]], [[Q2]];

// floordivsi: q - 1 when the remainder is non-zero and its sign differs from the divisor's.
// CHECK-NEXT: div.s32 [[Q:%r[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: rem.s32 [[R:%r[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: setp.ne.s32 [[NZ:%p[0-9]+]], [[R]], 0;
// CHECK-NEXT: xor.b32 [[X:%r[0-9]+]], [[R]], [[B]];
// CHECK-NEXT: setp.lt.s32 [[NEG:%p[0-9]+]], [[X]], 0;
// CHECK-NEXT: and.pred [[FIX:%p[0-9]+]], [[NZ]], [[NEG]];
// CHECK-NEXT: selp.b32 [[ADJ:%r[0-9]+]], 1, 0, [[FIX]];
// CHECK-NEXT: sub.s32 [[FD:%r[0-9]+]], [[Q]], [[ADJ]];

// ceildivsi: q + 1 when the remainder is non-zero and the signs agree.
// CHECK-NEXT: div.s32 [[Q2:%r[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: rem.s32 [[R2:%r[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: setp.ne.s32 [[NZ2:%p[0-9]+]], [[R2]], 0;
// CHECK-NEXT: xor.b32 [[X2:%r[0-9]+]], [[R2]], [[B]];
// CHECK-NEXT: setp.ge.s32 [[SAME:%p[0-9]+]], [[X2]], 0;
// CHECK-NEXT: and.pred [[FIX2:%p[0-9]+]], [[NZ2]], [[SAME]];
// CHECK-NEXT: selp.b32 [[ADJ2:%r[0-9]+]], 1, 0, [[FIX2]];
// CHECK-NEXT: add.s32 {{%r[0-9]+}}, [[Q2]], [[ADJ2]];

// ceildivui: unsigned, q + (r != 0).
// CHECK-NEXT: div.u32 [[Q3:%r[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: rem.u32 [[R3:%r[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: setp.ne.s32 [[NZ3:%p[0-9]+]], [[R3]], 0;
// CHECK-NEXT: selp.b32 [[ADJ3:%r[0-9]+]], 1, 0, [[NZ3]];
// CHECK-NEXT: add.s32 {{%r[0-9]+}}, [[Q3]], [[ADJ3]];

// CHECK-NEXT: shl.b32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: shr.s32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: shr.u32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: min.s32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: max.u32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: and.b32 {{%r[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: setp.lt.s32 [[LT:%p[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: setp.lo.u32 {{%p[0-9]+}}, [[A]], [[B]];
// CHECK-NEXT: selp.b32 {{%r[0-9]+}}, [[A]], [[B]], [[LT]];
// CHECK-NEXT: cvt.s64.s32 [[W:%rd[0-9]+]], [[A]];
// CHECK-NEXT: cvt.u64.u32 {{%rd[0-9]+}}, [[A]];
// CHECK-NEXT: mov.b64 [[C5:%rd[0-9]+]], 5;

// A 64-bit shift amount is narrowed to the .u32 PTX takes.
// CHECK-NEXT: cvt.u32.u64 [[AMT:%r[0-9]+]], [[C5]];
// CHECK-NEXT: shl.b64 [[S64:%rd[0-9]+]], [[W]], [[AMT]];
// CHECK-NEXT: cvt.u32.u64 [[N:%r[0-9]+]], [[S64]];
// CHECK-NEXT: cvt.s64.s32 [[IDX:%rd[0-9]+]], [[N]];
// CHECK-NEXT: and.b32 [[LOW:%r[0-9]+]], [[A]], 1;
// CHECK-NEXT: setp.ne.b32 [[BIT:%p[0-9]+]], [[LOW]], 0;
// CHECK-NEXT: selp.u32 {{%r[0-9]+}}, 1, 0, [[BIT]];
// An index widened from an i32 addresses through the i32 (mad.wide.s32 sign-extends it).
// CHECK-NEXT: mad.wide.s32 [[ADDR:%rd[0-9]+]], [[N]], 4, {{%rd[0-9]+}};
// CHECK-NEXT: st.global.b32 [[[ADDR]]], [[FD]];

// -----

tirx.kernel @floats(%X: !tirx.buffer<64xf32, global>) -> (%Y: !tirx.buffer<64xf16, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %a = cuda.load %X, %c0 : !tirx.buffer<64xf32, global>, index -> f32
  %b = arith.constant 1.5 : f32
  %add = arith.addf %a, %b : f32
  %mul = arith.mulf %add, %b : f32
  %div = arith.divf %mul, %b : f32
  %neg = arith.negf %div : f32
  %mx = arith.maximumf %neg, %a : f32
  %mn = arith.minnumf %mx, %a : f32
  %uno = arith.cmpf uno, %mn, %a : f32
  %olt = arith.cmpf olt, %mn, %a : f32
  %sel = arith.select %olt, %mn, %a : f32
  %i = arith.fptosi %sel : f32 to i32
  %f = arith.sitofp %i : i32 to f32
  %u = arith.uitofp %i : i32 to f32
  %d = arith.extf %f : f32 to f64
  %h = arith.truncf %u : f32 to f16
  %bits = arith.bitcast %f : f32 to i32
  cuda.store %Y, %c0, %h : !tirx.buffer<64xf16, global>, index, f16
  tirx.return
}

// CHECK-LABEL: .visible .entry floats(
// CHECK:      ld.global.f32 [[A:%f[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-NEXT: mov.f32 [[B:%f[0-9]+]], 0f3FC00000;
// CHECK-NEXT: add.rn.f32 [[ADD:%f[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: mul.rn.f32 [[MUL:%f[0-9]+]], [[ADD]], [[B]];
// CHECK-NEXT: div.rn.f32 [[DIV:%f[0-9]+]], [[MUL]], [[B]];
// CHECK-NEXT: neg.f32 [[NEG:%f[0-9]+]], [[DIV]];
// CHECK-NEXT: max.NaN.f32 [[MX:%f[0-9]+]], [[NEG]], [[A]];
// CHECK-NEXT: min.f32 [[MN:%f[0-9]+]], [[MX]], [[A]];
// CHECK-NEXT: setp.nan.f32 {{%p[0-9]+}}, [[MN]], [[A]];
// CHECK-NEXT: setp.lt.f32 [[OLT:%p[0-9]+]], [[MN]], [[A]];
// CHECK-NEXT: selp.f32 [[SEL:%f[0-9]+]], [[MN]], [[A]], [[OLT]];
// CHECK-NEXT: cvt.rzi.s32.f32 [[I:%r[0-9]+]], [[SEL]];
// CHECK-NEXT: cvt.rn.f32.s32 [[F:%f[0-9]+]], [[I]];
// CHECK-NEXT: cvt.rn.f32.u32 [[U:%f[0-9]+]], [[I]];
// CHECK-NEXT: cvt.f64.f32 {{%fd[0-9]+}}, [[F]];
// CHECK-NEXT: cvt.rn.f16.f32 [[H:%rs[0-9]+]], [[U]];
// CHECK-NEXT: mov.b32 {{%r[0-9]+}}, [[F]];
// CHECK:      st.global.b16 [{{%rd[0-9]+}}], [[H]];
