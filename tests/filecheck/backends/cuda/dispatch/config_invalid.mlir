// RUN: not tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch 2>&1 | filecheck %s
// Config keys a CUDA variant does not read are an error at the op (never silently ignored): the
// dispatch table names, per variant, the keys it takes (TIRx's keys not implemented here:
// reduction thread_reduce, gemm_async smem_desc, dsmem mbar); so is a value a variant cannot
// honour (copy vec_len: a power of two within 16 bytes; cast rounding_mode: PTX's cvt rows).

tirx.kernel @copy_vec_len(%X: !tirx.buffer<64x64xf32, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  tirx.copy cta %s, %X config {vec_len = 3} : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, global>
  tirx.return
}

// CHECK:      config_invalid.mlir:10:3: error: 'tirx.copy' op tile dispatch failed
// CHECK:      vec_auto (prio=10) {{ *}}| declined — config vec_len must be a power of two, got 3
// CHECK:      fallback (prio=0) {{ *}}| declined — config vec_len is not a config of this variant (it takes: none)

// -----

tirx.kernel @copy_nc_from_shared(%Y: !tirx.buffer<64x64xf32, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %one = arith.constant 1.0 : f32
  tirx.fill cta %s, %one : !tirx.buffer<64x64xf32, shared>, f32
  tirx.copy cta %Y, %s config {cache = "nc"} : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:25:3: error: 'tirx.copy' op tile dispatch failed
// CHECK:      vec_auto (prio=10) {{ *}}| declined — config cache hints global loads; this copy reads shared memory

// -----

tirx.kernel @copy_bad_evict(%X: !tirx.buffer<64x64xf32, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  tirx.copy cta %s, %X config {l1_evict = "evict_soon"} : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, global>
  tirx.return
}

// CHECK:      config_invalid.mlir:37:3: error: 'tirx.copy' op tile dispatch failed
// CHECK:      vec_auto (prio=10) {{ *}}| declined — config l1_evict must be one of "evict_normal", "evict_first", "evict_last", "evict_unchanged", "no_allocate", got "evict_soon"

// -----

tirx.kernel @cast_rounding_f64(%X: !tirx.buffer<64x64xf64, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf64, shared>
  %h = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy cta %s, %X : !tirx.buffer<64x64xf64, shared>, !tirx.buffer<64x64xf64, global>
  tirx.cast cta %h, %s config {rounding_mode = "rz"} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf64, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:51:3: error: 'tirx.cast' op tile dispatch failed
// CHECK:      vec_auto (prio=10) {{ *}}| declined — rounding_mode rz: cvt.rz.f16.f64: cvt.f16.f64 is not a supported conversion

// -----

tirx.kernel @exp_vec_len() grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %one = arith.constant 1.0 : f32
  tirx.fill cta %s, %one : !tirx.buffer<64x64xf32, shared>, f32
  tirx.exp cta %s, %s config {vec_len = 4} : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:64:3: error: 'tirx.exp' op tile dispatch failed
// CHECK:      smem (prio=10) {{ *}}| declined — config vec_len is not a config of this variant (it takes: none)

// -----

tirx.kernel @reduction_thread_reduce() grid [1] threads [64] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<2x64xf32, shared>
  %m = tirx.alloc : !tirx.buffer<2x1xf32, shared>
  %one = arith.constant 1.0 : f32
  tirx.fill cta %t, %one : !tirx.buffer<2x64xf32, shared>, f32
  tirx.max cta %m, %t config {thread_reduce = true} : !tirx.buffer<2x1xf32, shared>, !tirx.buffer<2x64xf32, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:78:3: error: 'tirx.max' op tile dispatch failed
// CHECK:      shared (prio=10) {{ *}}| declined — config thread_reduce is not a config of this variant (it takes: none)

// -----

tirx.kernel @gemm_config() grid [1] threads [128] target "cuda -arch=sm_80" {
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  %a = tirx.alloc : !tirx.buffer<64x32xf16, shared, swizzle(3,2,3) S[64,32]>
  %b = tirx.alloc : !tirx.buffer<32x64xf16, shared, swizzle(3,3,3) S[32,64]>
  tirx.gemm cta %acc, %a, %b beta 1.0 config {k_pack = 2} : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x32xf16, shared, swizzle(3,2,3) S[64,32]>, !tirx.buffer<32x64xf16, shared, swizzle(3,3,3) S[32,64]>
  tirx.return
}

// CHECK:      config_invalid.mlir:91:3: error: 'tirx.gemm' op tile dispatch failed
// CHECK:      mma.m16n8k* (prio=10) {{ *}}| declined — config k_pack is not a config of this variant (it takes: none)

// -----

tirx.kernel @wgmma_smem_desc(%A: !tirx.buffer<64x64xf16, global>, %B: !tirx.buffer<128x64xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %sa = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<128x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x128xf32, local>
  tirx.copy cta %sa, %A : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %sb, %B : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
  tirx.gemm_async warpgroup %acc, %sa, %sb config {smem_desc = "encode"} : !tirx.buffer<64x128xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:107:3: error: 'tirx.gemm_async' op tile dispatch failed
// CHECK:      wgmma (prio=10) {{ *}}| declined — config smem_desc is not a config of this variant (it takes: none)

// -----

tirx.kernel @dsmem_mbar(%A: !tirx.buffer<32x64xf32, global>) grid [2] threads [128] cluster [2]
    target "cuda -arch=sm_90a" {
  %r = tirx.cta_id_in_cluster x : index
  %c1 = arith.constant 1 : index
  %peer = arith.xori %r, %c1 : index
  %s = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %d = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.copy cta %s, %A : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, global>
  tirx.copy_async cta %d, %s remote_cta %peer config {mbar = 0} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, index
  tirx.cluster_sync cluster
  tirx.return
}

// CHECK:      config_invalid.mlir:124:3: error: 'tirx.copy_async' op tile dispatch failed
// CHECK:      dsmem (prio=10) {{ *}}| declined — config mbar is not a config of this variant (it takes: none)

// -----

// exp has no rounded PTX form: TIRx's rounding_mode is taken by add, sub, mul, fdiv, fma,
// reciprocal and sqrt (rounded_arith.py) and cast, not by the transcendental ops.
tirx.kernel @exp_rounding_mode() grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %one = arith.constant 1.0 : f32
  tirx.fill cta %s, %one : !tirx.buffer<64x64xf32, shared>, f32
  tirx.exp cta %s, %s config {rounding_mode = "rz"} : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:140:3: error: 'tirx.exp' op tile dispatch failed
// CHECK:      smem (prio=10) {{ *}}| declined — config rounding_mode is not a config of this variant (it takes: none)

// -----

// add takes rounding_mode; its variants name it among the keys they take.
tirx.kernel @add_vec_len() grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %one = arith.constant 1.0 : f32
  tirx.fill cta %s, %one : !tirx.buffer<64x64xf32, shared>, f32
  tirx.add cta %s, %s, %s config {vec_len = 4} : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, shared>
  tirx.return
}

// CHECK:      config_invalid.mlir:154:3: error: 'tirx.add' op tile dispatch failed
// CHECK:      smem (prio=10) {{ *}}| declined — config vec_len is not a config of this variant (it takes: rounding_mode)
