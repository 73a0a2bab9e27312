// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// tirx.cast's rounding_mode config (TIRx's): a narrowing float cast rounds each element with
// cvt.<mode> (vec_auto; the elementwise variants decline the key); a widening one is exact.

tirx.kernel @f16_toward_zero(%X: !tirx.buffer<64x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %h = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy cta %s, %X : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, global>
  tirx.cast cta %h, %s config {rounding_mode = "rz"} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @f16_toward_zero
// CHECK:       ptx.cvt "rz.f16.f32"
// CHECK-NOT:   arith.truncf

// -----

// Register tiles: no two-at-a-time cvt.rn.bf16x2 (it rounds to nearest); one cvt.rm per element.
tirx.kernel @bf16_down(%X: !tirx.buffer<64x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<64x64xf32, local>
  %h = tirx.alloc : !tirx.buffer<64x64xbf16, local>
  tirx.copy cta %a, %X : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf32, global>
  tirx.cast cta %h, %a config {rounding_mode = "rm"} : !tirx.buffer<64x64xbf16, local>, !tirx.buffer<64x64xf32, local>
  tirx.return
}

// CHECK-LABEL: @bf16_down
// CHECK-NOT:   cuda.pack
// CHECK:       ptx.cvt "rm.bf16.f32"
// CHECK-NOT:   cuda.pack

// -----

// A widening cast is exact whatever the mode: a plain extension.
tirx.kernel @widening(%X: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %f = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  tirx.copy cta %a, %X : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.cast cta %f, %a config {rounding_mode = "rp"} : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// CHECK-LABEL: @widening
// CHECK-NOT:   ptx.cvt
// CHECK:       arith.extf
