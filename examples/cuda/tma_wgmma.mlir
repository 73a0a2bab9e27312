// TMA load + one wgmma m64n128k16 (sm_90a), one warpgroup. Thread 0 loads a 64x16 f16 tile of A
// and a 128x16 f16 tile of B (both K-major, 32-byte swizzle) with cp.async.bulk.tensor into
// shared memory, completing on an mbarrier (expect_tx 6144 bytes); every thread waits on the
// barrier, builds the two shared-memory matrix descriptors (start >> 4, leading offset 1, stride
// offset 256 B >> 4, swizzle mode 3 = 32B in bits 62-63) and the warpgroup issues one
// wgmma.mma_async with scale-d = 0 (D = A * B^T), commits and waits, then stores D (64x128 f32).
//
// The tensor maps are CUtensorMap objects the host builds (cuTensorMapEncodeTiled: box {16, 64}
// and {16, 128}, CU_TENSOR_MAP_SWIZZLE_32B) and passes by value: parameters 0 and 1 are named in
// the kernel's cuda.tensor_maps attribute, typed as 128-byte buffers, and -t cuda prints them as
// `const __grid_constant__` 128-byte, 64-byte-aligned structs (docs/cuda.md).
// Generated once by a script; the 64 accumulators are spelled out.
//   tirx-opt -t cuda examples/cuda/tma_wgmma.mlir
tirx.kernel @tma_wgmma(%TmA: !tirx.buffer<128xi8, global>, %TmB: !tirx.buffer<128xi8, global>)
    -> (%D: !tirx.buffer<8192xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a"
    attributes {cuda.tensor_maps = array<i64: 0, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bytes = arith.constant 6144 : i32
  %lo_mask = arith.constant 262128 : i64
  %sixteen = arith.constant 16 : i64
  %desc_hi = arith.constant -4611685949707845632 : i64
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %true = arith.constant true
  %sA = cuda.shared_alloc align 1024 : !tirx.buffer<64x16xf16, shared>
  %sB = cuda.shared_alloc align 1024 : !tirx.buffer<128x16xf16, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pbar = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %pA = cuda.address %sA, %c0 : !tirx.buffer<64x16xf16, shared>, index -> i32
  %pB = cuda.address %sB, %c0 : !tirx.buffer<128x16xf16, shared>, index -> i32
  %mapA = cuda.address %TmA, %c0 : !tirx.buffer<128xi8, global>, index -> i64
  %mapB = cuda.address %TmB, %c0 : !tirx.buffer<128xi8, global>, index -> i64
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    ptx.mbarrier_init "shared" [%pbar], %one : (i32, i32) -> ()
    ptx.fence_proxy_async "shared::cta"
  }
  cuda.sync_threads
  scf.if %leader {
    %state = ptx.mbarrier_arrive_expect_tx "shared" [%pbar], %bytes : (i32, i32) -> i64
    ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster" [%pA], [%mapA, {%z, %z}], [%pbar] : (i32, i64, i32, i32, i32) -> ()
    ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster" [%pB], [%mapB, {%z, %z}], [%pbar] : (i32, i64, i32, i32, i32) -> ()
  }
  scf.while () : () -> () {
    %ready = ptx.mbarrier_try_wait_parity "shared" [%pbar], %z : (i32, i32) -> i1
    %waiting = arith.xori %ready, %true : i1
    scf.condition(%waiting)
  } do {
    scf.yield
  }
  %wA = arith.extui %pA : i32 to i64
  %loA = arith.andi %wA, %lo_mask : i64
  %startA = arith.divsi %loA, %sixteen : i64
  %descA = arith.ori %startA, %desc_hi : i64
  %wB = arith.extui %pB : i32 to i64
  %loB = arith.andi %wB, %lo_mask : i64
  %startB = arith.divsi %loB, %sixteen : i64
  %descB = arith.ori %startB, %desc_hi : i64
  ptx.wgmma_fence
  %d:64 = ptx.wgmma_mma_async_ss "m64n128k16.f32.f16.f16" {%zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero}, %descA, %descB, %false, 1, 1, 0, 0 : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  %warp = arith.divui %t, %c32 : index
  %lane = arith.remui %t, %c32 : index
  %quad = arith.divui %lane, %c4 : index
  %pair = arith.remui %lane, %c4 : index
  %r16 = arith.muli %warp, %c16 : index
  %row = arith.addi %r16, %quad : index
  %rowoff = arith.muli %row, %c128 : index
  %col = arith.muli %pair, %c2 : index
  %base = arith.addi %rowoff, %col : index
  %o0 = arith.constant 0 : index
  %i0 = arith.addi %base, %o0 : index
  cuda.store %D, %i0, %d#0 : !tirx.buffer<8192xf32, global>, index, f32
  %o1 = arith.constant 1 : index
  %i1 = arith.addi %base, %o1 : index
  cuda.store %D, %i1, %d#1 : !tirx.buffer<8192xf32, global>, index, f32
  %o2 = arith.constant 1024 : index
  %i2 = arith.addi %base, %o2 : index
  cuda.store %D, %i2, %d#2 : !tirx.buffer<8192xf32, global>, index, f32
  %o3 = arith.constant 1025 : index
  %i3 = arith.addi %base, %o3 : index
  cuda.store %D, %i3, %d#3 : !tirx.buffer<8192xf32, global>, index, f32
  %o4 = arith.constant 8 : index
  %i4 = arith.addi %base, %o4 : index
  cuda.store %D, %i4, %d#4 : !tirx.buffer<8192xf32, global>, index, f32
  %o5 = arith.constant 9 : index
  %i5 = arith.addi %base, %o5 : index
  cuda.store %D, %i5, %d#5 : !tirx.buffer<8192xf32, global>, index, f32
  %o6 = arith.constant 1032 : index
  %i6 = arith.addi %base, %o6 : index
  cuda.store %D, %i6, %d#6 : !tirx.buffer<8192xf32, global>, index, f32
  %o7 = arith.constant 1033 : index
  %i7 = arith.addi %base, %o7 : index
  cuda.store %D, %i7, %d#7 : !tirx.buffer<8192xf32, global>, index, f32
  %o8 = arith.constant 16 : index
  %i8 = arith.addi %base, %o8 : index
  cuda.store %D, %i8, %d#8 : !tirx.buffer<8192xf32, global>, index, f32
  %o9 = arith.constant 17 : index
  %i9 = arith.addi %base, %o9 : index
  cuda.store %D, %i9, %d#9 : !tirx.buffer<8192xf32, global>, index, f32
  %o10 = arith.constant 1040 : index
  %i10 = arith.addi %base, %o10 : index
  cuda.store %D, %i10, %d#10 : !tirx.buffer<8192xf32, global>, index, f32
  %o11 = arith.constant 1041 : index
  %i11 = arith.addi %base, %o11 : index
  cuda.store %D, %i11, %d#11 : !tirx.buffer<8192xf32, global>, index, f32
  %o12 = arith.constant 24 : index
  %i12 = arith.addi %base, %o12 : index
  cuda.store %D, %i12, %d#12 : !tirx.buffer<8192xf32, global>, index, f32
  %o13 = arith.constant 25 : index
  %i13 = arith.addi %base, %o13 : index
  cuda.store %D, %i13, %d#13 : !tirx.buffer<8192xf32, global>, index, f32
  %o14 = arith.constant 1048 : index
  %i14 = arith.addi %base, %o14 : index
  cuda.store %D, %i14, %d#14 : !tirx.buffer<8192xf32, global>, index, f32
  %o15 = arith.constant 1049 : index
  %i15 = arith.addi %base, %o15 : index
  cuda.store %D, %i15, %d#15 : !tirx.buffer<8192xf32, global>, index, f32
  %o16 = arith.constant 32 : index
  %i16 = arith.addi %base, %o16 : index
  cuda.store %D, %i16, %d#16 : !tirx.buffer<8192xf32, global>, index, f32
  %o17 = arith.constant 33 : index
  %i17 = arith.addi %base, %o17 : index
  cuda.store %D, %i17, %d#17 : !tirx.buffer<8192xf32, global>, index, f32
  %o18 = arith.constant 1056 : index
  %i18 = arith.addi %base, %o18 : index
  cuda.store %D, %i18, %d#18 : !tirx.buffer<8192xf32, global>, index, f32
  %o19 = arith.constant 1057 : index
  %i19 = arith.addi %base, %o19 : index
  cuda.store %D, %i19, %d#19 : !tirx.buffer<8192xf32, global>, index, f32
  %o20 = arith.constant 40 : index
  %i20 = arith.addi %base, %o20 : index
  cuda.store %D, %i20, %d#20 : !tirx.buffer<8192xf32, global>, index, f32
  %o21 = arith.constant 41 : index
  %i21 = arith.addi %base, %o21 : index
  cuda.store %D, %i21, %d#21 : !tirx.buffer<8192xf32, global>, index, f32
  %o22 = arith.constant 1064 : index
  %i22 = arith.addi %base, %o22 : index
  cuda.store %D, %i22, %d#22 : !tirx.buffer<8192xf32, global>, index, f32
  %o23 = arith.constant 1065 : index
  %i23 = arith.addi %base, %o23 : index
  cuda.store %D, %i23, %d#23 : !tirx.buffer<8192xf32, global>, index, f32
  %o24 = arith.constant 48 : index
  %i24 = arith.addi %base, %o24 : index
  cuda.store %D, %i24, %d#24 : !tirx.buffer<8192xf32, global>, index, f32
  %o25 = arith.constant 49 : index
  %i25 = arith.addi %base, %o25 : index
  cuda.store %D, %i25, %d#25 : !tirx.buffer<8192xf32, global>, index, f32
  %o26 = arith.constant 1072 : index
  %i26 = arith.addi %base, %o26 : index
  cuda.store %D, %i26, %d#26 : !tirx.buffer<8192xf32, global>, index, f32
  %o27 = arith.constant 1073 : index
  %i27 = arith.addi %base, %o27 : index
  cuda.store %D, %i27, %d#27 : !tirx.buffer<8192xf32, global>, index, f32
  %o28 = arith.constant 56 : index
  %i28 = arith.addi %base, %o28 : index
  cuda.store %D, %i28, %d#28 : !tirx.buffer<8192xf32, global>, index, f32
  %o29 = arith.constant 57 : index
  %i29 = arith.addi %base, %o29 : index
  cuda.store %D, %i29, %d#29 : !tirx.buffer<8192xf32, global>, index, f32
  %o30 = arith.constant 1080 : index
  %i30 = arith.addi %base, %o30 : index
  cuda.store %D, %i30, %d#30 : !tirx.buffer<8192xf32, global>, index, f32
  %o31 = arith.constant 1081 : index
  %i31 = arith.addi %base, %o31 : index
  cuda.store %D, %i31, %d#31 : !tirx.buffer<8192xf32, global>, index, f32
  %o32 = arith.constant 64 : index
  %i32 = arith.addi %base, %o32 : index
  cuda.store %D, %i32, %d#32 : !tirx.buffer<8192xf32, global>, index, f32
  %o33 = arith.constant 65 : index
  %i33 = arith.addi %base, %o33 : index
  cuda.store %D, %i33, %d#33 : !tirx.buffer<8192xf32, global>, index, f32
  %o34 = arith.constant 1088 : index
  %i34 = arith.addi %base, %o34 : index
  cuda.store %D, %i34, %d#34 : !tirx.buffer<8192xf32, global>, index, f32
  %o35 = arith.constant 1089 : index
  %i35 = arith.addi %base, %o35 : index
  cuda.store %D, %i35, %d#35 : !tirx.buffer<8192xf32, global>, index, f32
  %o36 = arith.constant 72 : index
  %i36 = arith.addi %base, %o36 : index
  cuda.store %D, %i36, %d#36 : !tirx.buffer<8192xf32, global>, index, f32
  %o37 = arith.constant 73 : index
  %i37 = arith.addi %base, %o37 : index
  cuda.store %D, %i37, %d#37 : !tirx.buffer<8192xf32, global>, index, f32
  %o38 = arith.constant 1096 : index
  %i38 = arith.addi %base, %o38 : index
  cuda.store %D, %i38, %d#38 : !tirx.buffer<8192xf32, global>, index, f32
  %o39 = arith.constant 1097 : index
  %i39 = arith.addi %base, %o39 : index
  cuda.store %D, %i39, %d#39 : !tirx.buffer<8192xf32, global>, index, f32
  %o40 = arith.constant 80 : index
  %i40 = arith.addi %base, %o40 : index
  cuda.store %D, %i40, %d#40 : !tirx.buffer<8192xf32, global>, index, f32
  %o41 = arith.constant 81 : index
  %i41 = arith.addi %base, %o41 : index
  cuda.store %D, %i41, %d#41 : !tirx.buffer<8192xf32, global>, index, f32
  %o42 = arith.constant 1104 : index
  %i42 = arith.addi %base, %o42 : index
  cuda.store %D, %i42, %d#42 : !tirx.buffer<8192xf32, global>, index, f32
  %o43 = arith.constant 1105 : index
  %i43 = arith.addi %base, %o43 : index
  cuda.store %D, %i43, %d#43 : !tirx.buffer<8192xf32, global>, index, f32
  %o44 = arith.constant 88 : index
  %i44 = arith.addi %base, %o44 : index
  cuda.store %D, %i44, %d#44 : !tirx.buffer<8192xf32, global>, index, f32
  %o45 = arith.constant 89 : index
  %i45 = arith.addi %base, %o45 : index
  cuda.store %D, %i45, %d#45 : !tirx.buffer<8192xf32, global>, index, f32
  %o46 = arith.constant 1112 : index
  %i46 = arith.addi %base, %o46 : index
  cuda.store %D, %i46, %d#46 : !tirx.buffer<8192xf32, global>, index, f32
  %o47 = arith.constant 1113 : index
  %i47 = arith.addi %base, %o47 : index
  cuda.store %D, %i47, %d#47 : !tirx.buffer<8192xf32, global>, index, f32
  %o48 = arith.constant 96 : index
  %i48 = arith.addi %base, %o48 : index
  cuda.store %D, %i48, %d#48 : !tirx.buffer<8192xf32, global>, index, f32
  %o49 = arith.constant 97 : index
  %i49 = arith.addi %base, %o49 : index
  cuda.store %D, %i49, %d#49 : !tirx.buffer<8192xf32, global>, index, f32
  %o50 = arith.constant 1120 : index
  %i50 = arith.addi %base, %o50 : index
  cuda.store %D, %i50, %d#50 : !tirx.buffer<8192xf32, global>, index, f32
  %o51 = arith.constant 1121 : index
  %i51 = arith.addi %base, %o51 : index
  cuda.store %D, %i51, %d#51 : !tirx.buffer<8192xf32, global>, index, f32
  %o52 = arith.constant 104 : index
  %i52 = arith.addi %base, %o52 : index
  cuda.store %D, %i52, %d#52 : !tirx.buffer<8192xf32, global>, index, f32
  %o53 = arith.constant 105 : index
  %i53 = arith.addi %base, %o53 : index
  cuda.store %D, %i53, %d#53 : !tirx.buffer<8192xf32, global>, index, f32
  %o54 = arith.constant 1128 : index
  %i54 = arith.addi %base, %o54 : index
  cuda.store %D, %i54, %d#54 : !tirx.buffer<8192xf32, global>, index, f32
  %o55 = arith.constant 1129 : index
  %i55 = arith.addi %base, %o55 : index
  cuda.store %D, %i55, %d#55 : !tirx.buffer<8192xf32, global>, index, f32
  %o56 = arith.constant 112 : index
  %i56 = arith.addi %base, %o56 : index
  cuda.store %D, %i56, %d#56 : !tirx.buffer<8192xf32, global>, index, f32
  %o57 = arith.constant 113 : index
  %i57 = arith.addi %base, %o57 : index
  cuda.store %D, %i57, %d#57 : !tirx.buffer<8192xf32, global>, index, f32
  %o58 = arith.constant 1136 : index
  %i58 = arith.addi %base, %o58 : index
  cuda.store %D, %i58, %d#58 : !tirx.buffer<8192xf32, global>, index, f32
  %o59 = arith.constant 1137 : index
  %i59 = arith.addi %base, %o59 : index
  cuda.store %D, %i59, %d#59 : !tirx.buffer<8192xf32, global>, index, f32
  %o60 = arith.constant 120 : index
  %i60 = arith.addi %base, %o60 : index
  cuda.store %D, %i60, %d#60 : !tirx.buffer<8192xf32, global>, index, f32
  %o61 = arith.constant 121 : index
  %i61 = arith.addi %base, %o61 : index
  cuda.store %D, %i61, %d#61 : !tirx.buffer<8192xf32, global>, index, f32
  %o62 = arith.constant 1144 : index
  %i62 = arith.addi %base, %o62 : index
  cuda.store %D, %i62, %d#62 : !tirx.buffer<8192xf32, global>, index, f32
  %o63 = arith.constant 1145 : index
  %i63 = arith.addi %base, %o63 : index
  cuda.store %D, %i63, %d#63 : !tirx.buffer<8192xf32, global>, index, f32
  tirx.return
}
