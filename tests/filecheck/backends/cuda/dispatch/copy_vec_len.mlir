// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// tirx.copy's vec_len config (TIRx's): every memory access of the copy moves exactly that many
// elements, narrower than vec_auto's widest (16 bytes) when asked.

tirx.kernel @f32_pairs(%X: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x128xf32, shared>
  tirx.copy cta %t, %X config {vec_len = 2} : !tirx.buffer<64x128xf32, shared>, !tirx.buffer<64x128xf32, global>
  tirx.return
}

// CHECK-LABEL: @f32_pairs
// CHECK-NOT:   v4
// CHECK:       ptx.ld "global.v2.f32"
// CHECK-NOT:   v4
// CHECK:       ptx.st "shared.v2.f32"

// -----

// f16 between memories: 8 elements are one 16-byte access of packed 32-bit words.
tirx.kernel @f16_words(%X: !tirx.buffer<64x128xf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  tirx.copy cta %t, %X config {vec_len = 8} : !tirx.buffer<64x128xf16, shared>, !tirx.buffer<64x128xf16, global>
  tirx.return
}

// CHECK-LABEL: @f16_words
// CHECK:       ptx.ld "global.v4.b32"
// CHECK:       ptx.st "shared.v4.b32"

// -----

// One element per access (scalar loads and stores) into a register tile.
tirx.kernel @f32_scalar_to_registers(%X: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %r = tirx.alloc : !tirx.buffer<64x128xf32, local>
  tirx.copy cta %r, %X config {vec_len = 1} : !tirx.buffer<64x128xf32, local>, !tirx.buffer<64x128xf32, global>
  tirx.return
}

// CHECK-LABEL: @f32_scalar_to_registers
// CHECK-NOT:   ptx.ld
// CHECK:       cuda.load %X, %{{.*}} : !tirx.buffer<64x128xf32, global>, index -> f32
// CHECK-NOT:   ptx.ld
// CHECK:       tirx.return
