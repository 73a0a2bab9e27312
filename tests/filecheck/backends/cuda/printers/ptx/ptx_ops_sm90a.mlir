// RUN: tirx-opt %s -t ptx | filecheck %s
// SASS: HGMMA SYNCS UTMALDG

// The Hopper families on sm_90a: an mbarrier (init, arrive.expect_tx, try_wait.parity in a
// scf.while), a TMA 2-d tile load into shared memory (the tensor map passed as a global
// buffer of 128 bytes), and a wgmma m64n8k16 on shared-memory descriptors, one elected thread
// issuing the copy. wgmma needs PTX 8.0, which is also sm_90a's minimum.

tirx.kernel @tma_wgmma(%T: !tirx.buffer<16xi64, global>) -> (%D: !tirx.buffer<512xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %tile = cuda.shared_alloc align 1024 : !tirx.buffer<1024xf16, shared>
  %b = unrealized_conversion_cast %bar : !tirx.buffer<1xi64, shared> to i32
  %s = unrealized_conversion_cast %tile : !tirx.buffer<1024xf16, shared> to i32
  %tm = unrealized_conversion_cast %T : !tirx.buffer<16xi64, global> to i64
  %one = arith.constant 1 : i32
  %bytes = arith.constant 2048 : i32
  %zero = arith.constant 0 : i32
  %full = arith.constant -1 : i32
  %p = arith.constant true
  %t = cuda.thread_idx x : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    ptx.mbarrier_init "shared::cta" [%b], %one : (i32, i32) -> ()
    ptx.fence_mbarrier_init
  }
  cuda.sync_threads
  %e = cuda.elect_sync %full : i32 -> i1
  %w = cuda.warp_id : index
  %w0 = arith.cmpi eq, %w, %c0 : index
  %issue = arith.andi %e, %w0 : i1
  scf.if %issue {
    %st = ptx.mbarrier_arrive_expect_tx "release.cta.shared::cta" [%b], %bytes : (i32, i32) -> i64
    ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster" [%s], [%tm, {%zero, %zero}], [%b] : (i32, i64, i32, i32, i32) -> ()
  }
  %done = scf.while (%flag = %zero) : (i32) -> i32 {
    %ok = ptx.mbarrier_try_wait_parity "acquire.cta.shared::cta" [%b], %zero : (i32, i32) -> i1
    %notok = arith.xori %ok, %p : i1
    scf.condition(%notok) %flag : i32
  } do {
  ^bb0(%f: i32):
    scf.yield %f : i32
  }
  %desc0 = arith.extui %s : i32 to i64
  %c4 = arith.constant 4 : i64
  %desc = arith.shrui %desc0, %c4 : i64
  %acc = arith.constant 0.0 : f32
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async_ss "m64n8k16.f32.f16.f16" {%acc, %acc, %acc, %acc}, %desc, %desc, %p, 1, 1, 0, 0 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  %gd = unrealized_conversion_cast %D : !tirx.buffer<512xf32, global> to i64
  ptx.st "global.v4.f32" [%gd], {%d#0, %d#1, %d#2, %d#3} : (i64, f32, f32, f32, f32) -> ()
  tirx.return
}

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90a
// CHECK:      .reqntid 128, 1, 1
// CHECK:      .shared .align 8 .b8 smem_bar[8];
// CHECK:      .shared .align 1024 .b8 smem_tile[2048];
// CHECK:      setp.ne.u32 [[TRUE:%p[0-9]+]], 1, 0;
// CHECK:      mbarrier.init.shared::cta.b64 [[[B:%r[0-9]+]]], {{%r[0-9]+}};
// CHECK-NEXT: fence.mbarrier_init.release.cluster;
// CHECK:      bar.sync 0;
// CHECK-NEXT: elect.sync _|[[E:%p[0-9]+]], {{%r[0-9]+}};
// CHECK:      mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK-NEXT: shr.u32 [[TID]], [[TID]], 5;
// CHECK:      and.pred [[ISSUE:%p[0-9]+]], [[E]], {{%p[0-9]+}};
// CHECK-NEXT: @![[ISSUE]] bra $L__if_end[[N:[0-9]+]];
// CHECK-NEXT: mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 {{%rd[0-9]+}}, [[[B]]], {{%r[0-9]+}};
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[B]]];
// CHECK-NEXT: $L__if_end[[N]]:
// CHECK:      $L__while[[W:[0-9]+]]:
// CHECK-NEXT: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 [[OK:%p[0-9]+]], [[[B]]], {{%r[0-9]+}};
// CHECK-NEXT: xor.pred [[NOTOK:%p[0-9]+]], [[OK]], [[TRUE]];
// CHECK:      @![[NOTOK]] bra $L__while_end
// CHECK:      bra.uni $L__while[[W]];
// CHECK:      shr.u64 [[DESC:%rd[0-9]+]], {{%rd[0-9]+}}, {{%r[0-9]+}};
// CHECK:      wgmma.fence.sync.aligned;
// The accumulator is read-write: its operand is copied into the result registers first.
// CHECK-NEXT: mov.f32 [[D0:%f[0-9]+]], [[ACC:%f[0-9]+]];
// CHECK-NEXT: mov.f32 {{%f[0-9]+}}, [[ACC]];
// CHECK-NEXT: mov.f32 {{%f[0-9]+}}, [[ACC]];
// CHECK-NEXT: mov.f32 {{%f[0-9]+}}, [[ACC]];
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {[[D0]], {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[TRUE]], 1, 1, 0, 0;
// CHECK-NEXT: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: st.global.v4.f32 [{{%rd[0-9]+}}], {[[D0]],
