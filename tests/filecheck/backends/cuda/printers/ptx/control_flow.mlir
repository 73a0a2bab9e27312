// RUN: tirx-opt %s --split-input-file -t ptx | filecheck %s

// scf as structured labels: a for loop with two carried values that swap each iteration (a
// parallel assignment through temporaries), nested in an if with a result; a cluster launch on
// sm_90a with the cluster ids, barrier and fence.

tirx.kernel @loops(%X: !tirx.buffer<64xi32, global>) -> (%Y: !tirx.buffer<64xi32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %lane = cuda.lane_id : index
  %x = cuda.load %X, %lane : !tirx.buffer<64xi32, global>, index -> i32
  %zero = arith.constant 0 : i32
  %even = arith.cmpi eq, %lane, %c0 : index
  %r = scf.if %even -> (i32) {
    %a, %b = scf.for %i = %c0 to %c8 step %c1 iter_args(%p = %x, %q = %zero) -> (i32, i32) {
      %s = arith.addi %p, %q : i32
      scf.yield %q, %s : i32, i32
    }
    scf.yield %a : i32
  } else {
    scf.yield %x : i32
  }
  cuda.store %Y, %lane, %r : !tirx.buffer<64xi32, global>, index, i32
  tirx.return
}

// CHECK:      ld.global.b32 [[X:%r[0-9]+]],
// CHECK:      setp.eq.s64 [[EVEN:%p[0-9]+]],
// CHECK-NEXT: @![[EVEN]] bra $L__else[[E:[0-9]+]];
// CHECK-NEXT: mov.b64 [[I:%rd[0-9]+]], [[LB:%rd[0-9]+]];
// CHECK-NEXT: mov.b32 [[T1:%r[0-9]+]], [[X]];
// CHECK-NEXT: mov.b32 [[T2:%r[0-9]+]], [[Z:%r[0-9]+]];
// CHECK-NEXT: mov.b32 [[P:%r[0-9]+]], [[T1]];
// CHECK-NEXT: mov.b32 [[Q:%r[0-9]+]], [[T2]];
// CHECK-NEXT: $L__for[[F:[0-9]+]]:
// CHECK-NEXT: setp.ge.s64 [[DONE:%p[0-9]+]], [[I]], {{%rd[0-9]+}};
// CHECK-NEXT: @[[DONE]] bra $L__for_end[[FE:[0-9]+]];
// CHECK-NEXT: add.s32 [[S:%r[0-9]+]], [[P]], [[Q]];

// yield %q, %s: both moved through temporaries before either is written.
// CHECK-NEXT: mov.b32 [[Y1:%r[0-9]+]], [[Q]];
// CHECK-NEXT: mov.b32 [[Y2:%r[0-9]+]], [[S]];
// CHECK-NEXT: mov.b32 [[P]], [[Y1]];
// CHECK-NEXT: mov.b32 [[Q]], [[Y2]];
// CHECK-NEXT: add.s64 [[I]], [[I]], {{%rd[0-9]+}};
// CHECK-NEXT: bra.uni $L__for[[F]];
// CHECK-NEXT: $L__for_end[[FE]]:
// CHECK-NEXT: mov.b32 [[R:%r[0-9]+]], [[P]];
// CHECK-NEXT: bra.uni $L__if_end{{[0-9]+}};
// CHECK-NEXT: $L__else[[E]]:
// CHECK-NEXT: mov.b32 [[R]], [[X]];
// CHECK-NEXT: $L__if_end{{[0-9]+}}:
// CHECK:      st.global.b32 [{{%rd[0-9]+}}], [[R]];

// -----

tirx.kernel @cluster() grid [4] threads [128] cluster [2] target "cuda -arch=sm_90a" {
  %r = cuda.cluster_block_rank : index
  %ci = cuda.cluster_idx x : index
  %cd = cuda.cluster_dim x : index
  %cb = cuda.cluster_block_idx x : index
  cuda.sync_cluster
  cuda.fence cluster
  cuda.sync_warpgroup barrier 1
  cuda.sync_warpgroup barrier 2 per_warpgroup
  tirx.return
}

// CHECK-LABEL: .visible .entry cluster(
// CHECK-NEXT: )
// CHECK-NEXT: .reqntid 128, 1, 1
// CHECK-NEXT: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// CHECK:      mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK:      mov.u32 {{%r[0-9]+}}, %clusterid.x;
// CHECK:      mov.u32 {{%r[0-9]+}}, %cluster_nctaid.x;
// CHECK:      mov.u32 {{%r[0-9]+}}, %cluster_ctaid.x;
// CHECK:      barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK-NEXT: fence.acq_rel.cluster;
// CHECK-NEXT: bar.sync 1, 128;
// CHECK-NEXT: mov.u32 %[[ID:r[0-9]+]], %tid.x;
// CHECK-NEXT: shr.u32 %[[ID]], %[[ID]], 7;
// CHECK-NEXT: add.u32 %[[ID]], %[[ID]], 2;
// CHECK-NEXT: bar.sync %[[ID]], 128;
// CHECK-NEXT: ret;
