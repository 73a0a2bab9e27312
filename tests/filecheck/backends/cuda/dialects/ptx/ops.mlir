// RUN: TIRX_ROUNDTRIP
// RUN: TIRX_GENERIC_ROUNDTRIP

// One op of every ptx table row in custom form; the generic form round-trips too (CHECK-GENERIC).
// The modifier string lists the row's modifier values in template order; outside a kernel with a
// cuda target no arch rule applies (see invalid.mlir for those).

%p, %r, %f, %h, %pr, %d, %acc = "test.op"() : () -> (i64, i32, f32, i16, i1, f64, f32)
%ld:4 = ptx.ld "global.nc.L1::no_allocate.v4.f32" [%p] : (i64) -> (f32, f32, f32, f32)
ptx.st "release.gpu.global.b32" [%p], %r : (i64, i32) -> ()
%mov = ptx.mov "b16" %h : (i16) -> i16
%mov_pack = ptx.mov_pack "b32" {%h, %h} : (i16, i16) -> i32
%mov_unpack:2 = ptx.mov_unpack "b32" %r : (i32) -> (i16, i16)
%cvt = ptx.cvt "rn.f32.f64" %d : (f64) -> f32
%cvt_pack = ptx.cvt_pack "relu.f16x2" %f, %f : (f32, f32) -> i32
%cvt_fp8x2 = ptx.cvt_fp8x2 "relu.e4m3x2" %f, %f : (f32, f32) -> i16
%cvt_fp8x2_f16x2 = ptx.cvt_fp8x2_f16x2 "relu.e4m3x2" %h : (i16) -> i32
%cvt_tf32 = ptx.cvt_tf32 "rna" %f : (f32) -> i32
%add_rnd = ptx.add_rnd "rz" %f, %f : (f32, f32) -> f32
%sub_rnd = ptx.sub_rnd "rm" %f, %f : (f32, f32) -> f32
%mul_rnd = ptx.mul_rnd "rp" %f, %f : (f32, f32) -> f32
%div_rnd = ptx.div_rnd "rn" %f, %f : (f32, f32) -> f32
%fma_rnd = ptx.fma_rnd "rz" %f, %f, %f : (f32, f32, f32) -> f32
%rcp_rnd = ptx.rcp_rnd "rm" %f : (f32) -> f32
%sqrt_rnd = ptx.sqrt_rnd "rp" %f : (f32) -> f32
%mma_sync:4 = ptx.mma_sync "m16n8k16.f32.bf16.bf16.f32" {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
%ldmatrix:4 = ptx.ldmatrix "x4.trans.shared::cta" [%p] : (i64) -> (i32, i32, i32, i32)
ptx.stmatrix "x1.trans.shared" [%p], {%r} : (i64, i32) -> ()
ptx.cp_async "cg.shared.L2::128B" [%p], [%p], 16 : (i64, i64) -> ()
ptx.cp_async_zfill "ca.shared.L2::64B" [%p], [%p], 16, %r : (i64, i64, i32) -> ()
ptx.cp_async_commit_group
ptx.cp_async_wait_group 0
ptx.cp_async_wait_all
ptx.cp_async_mbarrier_arrive "noinc.shared" [%p] : (i64) -> ()
ptx.mbarrier_init "shared" [%p], %r : (i64, i32) -> ()
%mbarrier_arrive = ptx.mbarrier_arrive "release.cta.shared" [%p] : (i64) -> i64
%mbarrier_arrive_expect_tx = ptx.mbarrier_arrive_expect_tx "release.cta.shared" [%p], %r : (i64, i32) -> i64
ptx.mbarrier_expect_tx "cta.shared::cta" [%p], %r : (i64, i32) -> ()
%mbarrier_test_wait_parity = ptx.mbarrier_test_wait_parity "shared" [%p], %r : (i64, i32) -> i1
%mbarrier_try_wait_parity = ptx.mbarrier_try_wait_parity "acquire.cta.shared" [%p], %r : (i64, i32) -> i1
ptx.mbarrier_inval "shared" [%p] : (i64) -> ()
%cvta = ptx.cvta "to.shared" %p : (i64) -> i64
%mapa = ptx.mapa "u32" %r, %r : (i32, i32) -> i32
%getctarank = ptx.getctarank "u64" %p : (i64) -> i32
%prmt = ptx.prmt "f4e" %r, %r, %r : (i32, i32, i32) -> i32
ptx.fence "sc.cta"
ptx.fence_proxy_async "shared::cta"
ptx.fence_mbarrier_init
ptx.cp_async_bulk_g2s "shared::cluster" [%p], [%p], %r, [%p] : (i64, i64, i32, i64) -> ()
ptx.cp_async_bulk_g2s_multicast [%p], [%p], %r, [%p], %h : (i64, i64, i32, i64, i16) -> ()
ptx.cp_async_bulk_s2g [%p], [%p], %r : (i64, i64, i32) -> ()
ptx.cp_async_bulk_s2c [%p], [%p], %r, [%p] : (i64, i64, i32, i64) -> ()
ptx.cp_async_bulk_commit_group
ptx.cp_async_bulk_wait_group "read" 0
ptx.cp_async_bulk_tensor_g2s "2d.shared::cta" [%r], [%p, {%r, %r}], [%r] : (i32, i64, i32, i32, i32) -> ()
ptx.cp_async_bulk_tensor_g2s_multicast "1d.tile" [%p], [%p, {%r}], [%p], %h : (i64, i64, i32, i64, i16) -> ()
ptx.cp_async_bulk_tensor_s2g "1d.tile" [%p, {%r}], [%p] : (i64, i32, i64) -> ()
ptx.cp_reduce_async_bulk_tensor "1d.add" [%p, {%r}], [%p] : (i64, i32, i64) -> ()
%pol = ptx.createpolicy "L2::evict_first" : () -> i64
ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster.L2::cache_hint" [%p], [%p, {%r, %r}], [%p], %pol : (i64, i64, i32, i32, i64, i64) -> ()
ptx.prefetch_tensormap [%p] : (i64) -> ()
ptx.wgmma_fence
ptx.wgmma_commit_group
ptx.wgmma_wait_group 0
%wgmma_mma_async_ss:4 = ptx.wgmma_mma_async_ss "m64n8k16.f32.f16.f16" {%acc, %acc, %acc, %acc}, %p, %p, %pr, 1, 1, 0, 0 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
%wgmma_mma_async_rs:4 = ptx.wgmma_mma_async_rs "m64n8k16.f32.f16.f16" {%acc, %acc, %acc, %acc}, {%r, %r, %r, %r}, %p, %pr, 1, 1, 0 : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i1) -> (f32, f32, f32, f32)
%elect_sync:2 = ptx.elect_sync 4294967295 : () -> (i32, i1)
%shfl_sync = ptx.shfl_sync "up" %r, %r, 31, 4294967295 : (i32, i32) -> i32
%vote_sync = ptx.vote_sync "all.pred" %pr, 4294967295 : (i1) -> i1
%redux_sync = ptx.redux_sync "add.s32" %r, 4294967295 : (i32) -> i32
%activemask = ptx.activemask : () -> i32
%match_any_sync = ptx.match_any_sync "b64" %p, 4294967295 : (i64) -> i32
%atom = ptx.atom "acq_rel.gpu.global.add.f32" [%p], %f : (i64, f32) -> f32
%atom_cas = ptx.atom_cas "relaxed.global.b32" [%p], %r, %r : (i64, i32, i32) -> i32
ptx.red "global.add.noftz.bf16x2" [%p], %r : (i64, i32) -> ()
ptx.red_vec "v2" [%p], {%f, %f} : (i64, f32, f32) -> ()
ptx.bar_sync 0
ptx.bar "sync" 1, 128
ptx.barrier_cluster "arrive.release.aligned"
ptx.griddepcontrol "wait"
ptx.setmaxnreg "inc" 240

// CHECK:      %ld, %ld_1, %ld_2, %ld_3 = ptx.ld "global.nc.L1::no_allocate.v4.f32" [%p] : (i64) -> (f32, f32, f32, f32)
// CHECK-NEXT: ptx.st "release.gpu.global.b32" [%p], %r : (i64, i32) -> ()
// CHECK-NEXT: %mov = ptx.mov "b16" %h : (i16) -> i16
// CHECK-NEXT: %mov_pack = ptx.mov_pack "b32" {%h, %h} : (i16, i16) -> i32
// CHECK-NEXT: %mov_unpack, %mov_unpack_1 = ptx.mov_unpack "b32" %r : (i32) -> (i16, i16)
// CHECK-NEXT: %cvt = ptx.cvt "rn.f32.f64" %d : (f64) -> f32
// CHECK-NEXT: %cvt_pack = ptx.cvt_pack "relu.f16x2" %f, %f : (f32, f32) -> i32
// CHECK-NEXT: %cvt_fp8x2 = ptx.cvt_fp8x2 "relu.e4m3x2" %f, %f : (f32, f32) -> i16
// CHECK-NEXT: %cvt_fp8x2_f16x2 = ptx.cvt_fp8x2_f16x2 "relu.e4m3x2" %h : (i16) -> i32
// CHECK-NEXT: %cvt_tf32 = ptx.cvt_tf32 "rna" %f : (f32) -> i32
// CHECK-NEXT: %add_rnd = ptx.add_rnd "rz" %f, %f : (f32, f32) -> f32
// CHECK-NEXT: %sub_rnd = ptx.sub_rnd "rm" %f, %f : (f32, f32) -> f32
// CHECK-NEXT: %mul_rnd = ptx.mul_rnd "rp" %f, %f : (f32, f32) -> f32
// CHECK-NEXT: %div_rnd = ptx.div_rnd "rn" %f, %f : (f32, f32) -> f32
// CHECK-NEXT: %fma_rnd = ptx.fma_rnd "rz" %f, %f, %f : (f32, f32, f32) -> f32
// CHECK-NEXT: %rcp_rnd = ptx.rcp_rnd "rm" %f : (f32) -> f32
// CHECK-NEXT: %sqrt_rnd = ptx.sqrt_rnd "rp" %f : (f32) -> f32
// CHECK-NEXT: %mma_sync, %mma_sync_1, %mma_sync_2, %mma_sync_3 = ptx.mma_sync "m16n8k16.f32.bf16.bf16.f32" {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-NEXT: %ldmatrix, %ldmatrix_1, %ldmatrix_2, %ldmatrix_3 = ptx.ldmatrix "x4.trans.shared::cta" [%p] : (i64) -> (i32, i32, i32, i32)
// CHECK-NEXT: ptx.stmatrix "x1.trans.shared" [%p], {%r} : (i64, i32) -> ()
// CHECK-NEXT: ptx.cp_async "cg.shared.L2::128B" [%p], [%p], 16 : (i64, i64) -> ()
// CHECK-NEXT: ptx.cp_async_zfill "ca.shared.L2::64B" [%p], [%p], 16, %r : (i64, i64, i32) -> ()
// CHECK-NEXT: ptx.cp_async_commit_group
// CHECK-NEXT: ptx.cp_async_wait_group 0
// CHECK-NEXT: ptx.cp_async_wait_all
// CHECK-NEXT: ptx.cp_async_mbarrier_arrive "noinc.shared" [%p] : (i64) -> ()
// CHECK-NEXT: ptx.mbarrier_init "shared" [%p], %r : (i64, i32) -> ()
// CHECK-NEXT: %mbarrier_arrive = ptx.mbarrier_arrive "release.cta.shared" [%p] : (i64) -> i64
// CHECK-NEXT: %mbarrier_arrive_expect_tx = ptx.mbarrier_arrive_expect_tx "release.cta.shared" [%p], %r : (i64, i32) -> i64
// CHECK-NEXT: ptx.mbarrier_expect_tx "cta.shared::cta" [%p], %r : (i64, i32) -> ()
// CHECK-NEXT: %mbarrier_test_wait_parity = ptx.mbarrier_test_wait_parity "shared" [%p], %r : (i64, i32) -> i1
// CHECK-NEXT: %mbarrier_try_wait_parity = ptx.mbarrier_try_wait_parity "acquire.cta.shared" [%p], %r : (i64, i32) -> i1
// CHECK-NEXT: ptx.mbarrier_inval "shared" [%p] : (i64) -> ()
// CHECK-NEXT: %cvta = ptx.cvta "to.shared" %p : (i64) -> i64
// CHECK-NEXT: %mapa = ptx.mapa "u32" %r, %r : (i32, i32) -> i32
// CHECK-NEXT: %getctarank = ptx.getctarank "u64" %p : (i64) -> i32
// CHECK-NEXT: %prmt = ptx.prmt "f4e" %r, %r, %r : (i32, i32, i32) -> i32
// CHECK-NEXT: ptx.fence "sc.cta"
// CHECK-NEXT: ptx.fence_proxy_async "shared::cta"
// CHECK-NEXT: ptx.fence_mbarrier_init
// CHECK-NEXT: ptx.cp_async_bulk_g2s "shared::cluster" [%p], [%p], %r, [%p] : (i64, i64, i32, i64) -> ()
// CHECK-NEXT: ptx.cp_async_bulk_g2s_multicast [%p], [%p], %r, [%p], %h : (i64, i64, i32, i64, i16) -> ()
// CHECK-NEXT: ptx.cp_async_bulk_s2g [%p], [%p], %r : (i64, i64, i32) -> ()
// CHECK-NEXT: ptx.cp_async_bulk_s2c [%p], [%p], %r, [%p] : (i64, i64, i32, i64) -> ()
// CHECK-NEXT: ptx.cp_async_bulk_commit_group
// CHECK-NEXT: ptx.cp_async_bulk_wait_group "read" 0
// CHECK-NEXT: ptx.cp_async_bulk_tensor_g2s "2d.shared::cta" [%r], [%p, {%r, %r}], [%r] : (i32, i64, i32, i32, i32) -> ()
// CHECK-NEXT: ptx.cp_async_bulk_tensor_g2s_multicast "1d.tile" [%p], [%p, {%r}], [%p], %h : (i64, i64, i32, i64, i16) -> ()
// CHECK-NEXT: ptx.cp_async_bulk_tensor_s2g "1d.tile" [%p, {%r}], [%p] : (i64, i32, i64) -> ()
// CHECK-NEXT: ptx.cp_reduce_async_bulk_tensor "1d.add" [%p, {%r}], [%p] : (i64, i32, i64) -> ()
// CHECK-NEXT: %pol = ptx.createpolicy "L2::evict_first" : () -> i64
// CHECK-NEXT: ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster.L2::cache_hint" [%p], [%p, {%r, %r}], [%p], %pol : (i64, i64, i32, i32, i64, i64) -> ()
// CHECK-NEXT: ptx.prefetch_tensormap [%p] : (i64) -> ()
// CHECK-NEXT: ptx.wgmma_fence
// CHECK-NEXT: ptx.wgmma_commit_group
// CHECK-NEXT: ptx.wgmma_wait_group 0
// CHECK-NEXT: %wgmma_mma_async_ss, %wgmma_mma_async_ss_1, %wgmma_mma_async_ss_2, %wgmma_mma_async_ss_3 = ptx.wgmma_mma_async_ss "m64n8k16.f32.f16.f16" {%acc, %acc, %acc, %acc}, %p, %p, %pr, 1, 1, 0, 0 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
// CHECK-NEXT: %wgmma_mma_async_rs, %wgmma_mma_async_rs_1, %wgmma_mma_async_rs_2, %wgmma_mma_async_rs_3 = ptx.wgmma_mma_async_rs "m64n8k16.f32.f16.f16" {%acc, %acc, %acc, %acc}, {%r, %r, %r, %r}, %p, %pr, 1, 1, 0 : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i1) -> (f32, f32, f32, f32)
// CHECK-NEXT: %elect_sync, %elect_sync_1 = ptx.elect_sync 4294967295 : () -> (i32, i1)
// CHECK-NEXT: %shfl_sync = ptx.shfl_sync "up" %r, %r, 31, 4294967295 : (i32, i32) -> i32
// CHECK-NEXT: %vote_sync = ptx.vote_sync "all.pred" %pr, 4294967295 : (i1) -> i1
// CHECK-NEXT: %redux_sync = ptx.redux_sync "add.s32" %r, 4294967295 : (i32) -> i32
// CHECK-NEXT: %activemask = ptx.activemask : () -> i32
// CHECK-NEXT: %match_any_sync = ptx.match_any_sync "b64" %p, 4294967295 : (i64) -> i32
// CHECK-NEXT: %atom = ptx.atom "acq_rel.gpu.global.add.f32" [%p], %f : (i64, f32) -> f32
// CHECK-NEXT: %atom_cas = ptx.atom_cas "relaxed.global.b32" [%p], %r, %r : (i64, i32, i32) -> i32
// CHECK-NEXT: ptx.red "global.add.noftz.bf16x2" [%p], %r : (i64, i32) -> ()
// CHECK-NEXT: ptx.red_vec "v2" [%p], {%f, %f} : (i64, f32, f32) -> ()
// CHECK-NEXT: ptx.bar_sync 0
// CHECK-NEXT: ptx.bar "sync" 1, 128
// CHECK-NEXT: ptx.barrier_cluster "arrive.release.aligned"
// CHECK-NEXT: ptx.griddepcontrol "wait"
// CHECK-NEXT: ptx.setmaxnreg "inc" 240

// CHECK-GENERIC: %ld, %ld_1, %ld_2, %ld_3 = "ptx.ld"(%p) <{space = "global", nc = "nc", l1 = "L1::no_allocate", vec = "v4", type = "f32"}> : (i64) -> (f32, f32, f32, f32)
// CHECK-GENERIC: "ptx.cp_async"(%p, %p) <{cache = "cg", space = "shared", l2 = "L2::128B", cp_size = 16 : i64}> : (i64, i64) -> ()
// CHECK-GENERIC: "ptx.cp_async_wait_group"() <{n = 0 : i64}> : () -> ()
// CHECK-GENERIC: "ptx.fence_mbarrier_init"() : () -> ()
// CHECK-GENERIC: "ptx.cp_async_bulk_tensor_g2s"(%r, %p, %r, %r, %r) <{dim = "2d", space = "shared::cta"}> : (i32, i64, i32, i32, i32) -> ()
// CHECK-GENERIC: %wgmma_mma_async_rs, %wgmma_mma_async_rs_1, %wgmma_mma_async_rs_2, %wgmma_mma_async_rs_3 = "ptx.wgmma_mma_async_rs"(%acc, %acc, %acc, %acc, %r, %r, %r, %r, %p, %pr) <{shape = "m64n8k16", dtype = "f32", atype = "f16", btype = "f16", scale_a = 1 : i64, scale_b = 1 : i64, tnsp_b = 0 : i64}> : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i1) -> (f32, f32, f32, f32)
// CHECK-GENERIC: %elect_sync, %elect_sync_1 = "ptx.elect_sync"() <{membermask = 4294967295 : i64}> : () -> (i32, i1)
// CHECK-GENERIC: "ptx.setmaxnreg"() <{action = "inc", count = 240 : i64}> : () -> ()
