// RUN: not tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch 2>&1 | filecheck %s
// copy_async config keys and values no variant takes: a located error whose table names, per
// variant, the keys it takes (ldgsts: fill_mode, prefetch_size, direct; TMA: use_tma_reduce,
// cta_mask, oob, cache_hint, prefetch_tensormap) or the values a key takes.

tirx.kernel @unknown_key(%X: !tirx.buffer<64x64xf16, global>) grid [1] threads [128]
    target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %X config {prefetch = 128} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}

// CHECK:      copy_async_config.mlir:9:3: error: 'tirx.copy_async' op tile dispatch failed
// CHECK:      ldgsts (prio=20)       | declined — config prefetch is not a config of this variant (it takes: fill_mode, prefetch_size, direct)
// CHECK:      tma_auto (prio=10)     | declined — config prefetch is not a config of this variant (it takes: use_tma_reduce, cta_mask, oob, cache_hint, prefetch_tensormap)

// -----

tirx.kernel @bad_values(%X: !tirx.buffer<64x64xi16, global>) grid [1] threads [128]
    target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xi16, shared>
  tirx.copy_async cta %s, %X config {prefetch_size = 32, oob = "nan"} : !tirx.buffer<64x64xi16, shared>, !tirx.buffer<64x64xi16, global>
  tirx.return
}

// CHECK:      copy_async_config.mlir:22:3: error: 'tirx.copy_async' op tile dispatch failed
// CHECK:      ldgsts (prio=20)       | declined — config oob is not a config of this variant
// CHECK:      tma_auto (prio=10)     | declined — config prefetch_size is not a config of this variant

// -----

tirx.kernel @nan_fill_of_integers(%X: !tirx.buffer<64x64xi16, global>) grid [1] threads [128]
    target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xi16, shared>
  tirx.copy_async cta %s, %X dispatch "tma_auto" config {oob = "nan"} : !tirx.buffer<64x64xi16, shared>, !tirx.buffer<64x64xi16, global>
  tirx.return
}

// CHECK:      copy_async_config.mlir:35:3: error: 'tirx.copy_async' op tile dispatch failed
// CHECK:      tma_auto (prio=10)     | declined — config oob = "nan" fills a load's out-of-bounds elements of a floating-point tile with NaN; this tile holds i16

// -----

tirx.kernel @oob_value(%X: !tirx.buffer<64x64xf16, global>) grid [1] threads [128]
    target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %X dispatch "tma_auto" config {oob = "inf"} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}

// CHECK:      copy_async_config.mlir:47:3: error: 'tirx.copy_async' op tile dispatch failed
// CHECK:      tma_auto (prio=10)     | declined — config oob must be one of "zero", "nan", got "inf"
