// RUN: tirx-opt %s -t ptx | filecheck %s
// SASS: HMMA LDSM LDGSTS

// ptx ops print through the table's render: cp.async and its groups, ldmatrix, ld and
// mma.sync on sm_80. Addresses are buffers cast to i64 (global) or i32 (shared).

tirx.kernel @mma(%A: !tirx.buffer<512xf16, global>, %B: !tirx.buffer<256xf16, global>) -> (%D: !tirx.buffer<128xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %sa = cuda.shared_alloc align 128 : !tirx.buffer<512xf16, shared>
  %m = arith.constant -1 : i32
  %lane = cuda.lane_id : index
  %c16 = arith.constant 16 : index
  %off = arith.muli %lane, %c16 : index
  %off32 = arith.index_cast %off : index to i32
  %off64 = arith.index_cast %off : index to i64
  %ga = unrealized_conversion_cast %A : !tirx.buffer<512xf16, global> to i64
  %sa32 = unrealized_conversion_cast %sa : !tirx.buffer<512xf16, shared> to i32
  %dst = arith.addi %sa32, %off32 : i32
  %src = arith.addi %ga, %off64 : i64
  ptx.cp_async "cg.shared.L2::128B" [%dst], [%src], 16 : (i32, i64) -> ()
  ptx.cp_async_commit_group
  ptx.cp_async_wait_group 0
  cuda.sync_warp %m : i32
  %a:4 = ptx.ldmatrix "x4.shared" [%dst] : (i32) -> (i32, i32, i32, i32)
  %gb = unrealized_conversion_cast %B : !tirx.buffer<256xf16, global> to i64
  %c8 = arith.constant 8 : i64
  %lane64 = arith.index_cast %lane : index to i64
  %boff = arith.muli %lane64, %c8 : i64
  %bsrc = arith.addi %gb, %boff : i64
  %b:2 = ptx.ld "global.nc.v2.b32" [%bsrc] : (i64) -> (i32, i32)
  %z = arith.constant 0.0 : f32
  %d:4 = ptx.mma_sync "m16n8k16.f32.f16.f16.f32" {%a#0, %a#1, %a#2, %a#3}, {%b#0, %b#1}, {%z, %z, %z, %z} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %c4 = arith.constant 4 : index
  %i = arith.muli %lane, %c4 : index
  %dv = cuda.load %D, %i : !tirx.buffer<128xf32, global>, index -> vector<4xf32>
  %gd = unrealized_conversion_cast %D : !tirx.buffer<128xf32, global> to i64
  %doff = arith.muli %off64, %c8 : i64
  ptx.st "global.v4.f32" [%gd], {%d#0, %d#1, %d#2, %d#3} : (i64, f32, f32, f32, f32) -> ()
  tirx.return
}

// cp.async with an L2 prefetch size needs PTX 7.4, above sm_80's minimum 7.0:
// CHECK:      .version 7.4
// CHECK-NEXT: .target sm_80
// CHECK-NEXT: .address_size 64
// CHECK:      .visible .entry mma(
// CHECK-NEXT:     .param .u64 mma_param_0,
// CHECK-NEXT:     .param .u64 mma_param_1,
// CHECK-NEXT:     .param .u64 mma_param_2
// CHECK-NEXT: )
// CHECK-NEXT: .reqntid 32, 1, 1
// CHECK-NEXT: {
// CHECK:      .shared .align 128 .b8 smem_sa[1024];
// CHECK:      mov.u32 [[SA:%r[0-9]+]], smem_sa;
// CHECK:      mov.u32 {{%r[0-9]+}}, %laneid;
// CHECK:      add.s32 [[DST:%r[0-9]+]], [[SA]], {{%r[0-9]+}};
// CHECK:      cp.async.cg.shared.global.L2::128B [[[DST]]], [{{%rd[0-9]+}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group 0;
// CHECK-NEXT: bar.warp.sync {{%r[0-9]+}};
// CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[A0:%r[0-9]+]], [[A1:%r[0-9]+]], [[A2:%r[0-9]+]], [[A3:%r[0-9]+]]}, [[[DST]]];
// CHECK:      ld.global.nc.v2.b32 {[[B0:%r[0-9]+]], [[B1:%r[0-9]+]]}, [{{%rd[0-9]+}}];
// CHECK-NEXT: mov.f32 [[Z:%f[0-9]+]], 0f00000000;
// CHECK-NEXT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}}, {[[A0]], [[A1]], [[A2]], [[A3]]}, {[[B0]], [[B1]]}, {[[Z]], [[Z]], [[Z]], [[Z]]};
// CHECK:      ld.global.v4.f32 {{{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}}, [{{%rd[0-9]+}}];
// CHECK:      st.global.v4.f32 [{{%rd[0-9]+}}], {{{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}};
// CHECK-NEXT: ret;
