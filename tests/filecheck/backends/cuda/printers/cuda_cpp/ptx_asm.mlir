// RUN: tirx-opt -t cuda --split-input-file %s | filecheck %s

// Inline PTX: constraint letters by the value's type ("r", "l", "f", "h", "d"), "=" outputs,
// "+" for a register read and written (wgmma's accumulator), predicates through setp / selp,
// the "memory" clobber only where the instruction touches or orders memory.
tirx.kernel @asm(%G: !tirx.buffer<1024xf32, global>, %D: !tirx.buffer<1024xf64, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %p = cuda.address %G, %t : !tirx.buffer<1024xf32, global>, index -> i64
  %pd = cuda.address %D, %t : !tirx.buffer<1024xf64, global>, index -> i64
  %f = ptx.ld "global.f32" [%p] : (i64) -> f32
  %d = ptx.ld "global.f64" [%pd] : (i64) -> f64
  %h = arith.constant 7 : i16
  %packed = ptx.mov_pack "b32" {%h, %h} : (i16, i16) -> i32
  %lo, %hi = ptx.mov_unpack "b32" %packed : (i32) -> (i16, i16)
  %cv = ptx.cvt "rn.f32.f64" %d : (f64) -> f32
  %bits = ptx.cvt_pack "relu.f16x2" %f, %cv : (f32, f32) -> i32
  %full = arith.constant 4294967295 : i64
  %sh = ptx.shfl_sync "bfly" %bits, %packed, 31, 4294967295 : (i32, i32) -> i32
  %ok = arith.cmpi eq, %sh, %bits : i32
  %all = ptx.vote_sync "all.pred" %ok, 4294967295 : (i1) -> i1
  %lane, %elected = ptx.elect_sync 4294967295 : () -> (i32, i1)
  %both = arith.andi %all, %elected : i1
  scf.if %both {
    ptx.st "global.f32" [%p], %cv : (i64, f32) -> ()
  }
  ptx.fence "sc.cta"
  ptx.bar_sync 0
  %sum = arith.addi %lane, %packed : i32
  %ext = arith.extsi %lo : i16 to i32
  %ext2 = arith.extsi %hi : i16 to i32
  %s2 = arith.addi %sum, %ext : i32
  %s3 = arith.addi %s2, %ext2 : i32
  ptx.st "global.b32" [%p], %s3 : (i64, i32) -> ()
  tirx.return
}

// CHECK:      float f;
// CHECK-NEXT: asm volatile("ld.global.f32 %0, [%1];" : "=f"(f) : "l"(p) : "memory");
// CHECK-NEXT: double d;
// CHECK-NEXT: asm volatile("ld.global.f64 %0, [%1];" : "=d"(d) : "l"(pd) : "memory");
// CHECK-NEXT: int packed;
// CHECK-NEXT: asm volatile("mov.b32 %0, {%1, %1};" : "=r"(packed) : "h"(static_cast<short>(7)));
// CHECK-NEXT: short lo;
// CHECK-NEXT: short hi;
// CHECK-NEXT: asm volatile("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(packed));
// CHECK-NEXT: float cv;
// CHECK-NEXT: asm volatile("cvt.rn.f32.f64 %0, %1;" : "=f"(cv) : "d"(d));
// CHECK-NEXT: int bits;
// CHECK-NEXT: asm volatile("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(bits) : "f"(f), "f"(cv));
// CHECK:      asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 31, 4294967295;" : "=r"(sh) : "r"(bits), "r"(packed));
// CHECK-NEXT: unsigned int all_bits;
// CHECK-NEXT: asm volatile("{ .reg .pred tirx_p1; .reg .pred tirx_p0; setp.ne.b32 tirx_p1, %1, 0; vote.sync.all.pred tirx_p0, tirx_p1, 4294967295; selp.u32 %0, 1, 0, tirx_p0; }" : "=r"(all_bits) : "r"(static_cast<int>((sh == bits))));
// CHECK-NEXT: const bool all = all_bits != 0u;
// CHECK-NEXT: int lane;
// CHECK-NEXT: unsigned int elected_bits;
// CHECK-NEXT: asm volatile("{ .reg .pred tirx_p1; elect.sync %0|tirx_p1, 4294967295; selp.u32 %1, 1, 0, tirx_p1; }" : "=r"(lane), "=r"(elected_bits));
// CHECK:      asm volatile("fence.sc.cta;" : : : "memory");
// CHECK-NEXT: asm volatile("bar.sync 0;" : : : "memory");

// -----

// wgmma: the 4 accumulators are "+f" (read and written), the descriptors "l", scale-d a
// predicate.
tirx.kernel @wgmma(%G: !tirx.buffer<512xf32, global>) grid [1] threads [128]
    target "cuda -arch=sm_90a" {
  %t = cuda.thread_idx x : index
  %c4 = arith.constant 4 : index
  %i = arith.muli %t, %c4 : index
  %desc = arith.constant 4611686018427387904 : i64
  %acc = arith.constant 0.0 : f32
  %scale = arith.constant true
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async_ss "m64n8k16.f32.f16.f16" {%acc, %acc, %acc, %acc}, %desc, %desc, %scale, 1, 1, 0, 0 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  %p = cuda.address %G, %i : !tirx.buffer<512xf32, global>, index -> i64
  ptx.st "global.v4.f32" [%p], {%d#0, %d#1, %d#2, %d#3} : (i64, f32, f32, f32, f32) -> ()
  tirx.return
}

// CHECK:      float d = 0.0f;
// CHECK-NEXT: float d_1 = 0.0f;
// CHECK-NEXT: float d_2 = 0.0f;
// CHECK-NEXT: float d_3 = 0.0f;
// CHECK-NEXT: asm volatile("{ .reg .pred tirx_p5; setp.ne.b32 tirx_p5, %5, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %4, tirx_p5, 1, 1, 0, 0; }" : "+f"(d), "+f"(d_1), "+f"(d_2), "+f"(d_3) : "l"(static_cast<long long>(4611686018427387904)), "r"(static_cast<int>(1)) : "memory");
