// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// TIRx's rounding_mode config on elementwise arithmetic (rounded_arith.py): each f32 operation
// is one ptx.<op>_rnd (<op>.<mode>.f32), whatever the memory; a narrower destination gets one
// cvt.<mode>.

// add: one add.rz.f32 per element (ptx.add_rnd), no arith.addf.
tirx.kernel @add_toward_zero(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.add cta %r, %a, %b config {rounding_mode = "rz"} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @add_toward_zero
// CHECK:       ptx.add_rnd "rz"
// CHECK-NOT:   arith.addf

// -----

// sub toward -inf.
tirx.kernel @sub_down(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.sub cta %r, %a, %b config {rounding_mode = "rm"} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @sub_down
// CHECK:       ptx.sub_rnd "rm"
// CHECK-NOT:   arith.subf

// -----

// mul toward +inf on register tiles.
tirx.kernel @mul_up_registers(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, local>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, local>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, local>
  tirx.mul cta %r, %a, %b config {rounding_mode = "rp"} : !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, local>
  tirx.return
}

// CHECK-LABEL: @mul_up_registers
// CHECK:       ptx.mul_rnd "rp"
// CHECK-NOT:   arith.mulf

// -----

// fdiv: div.rz.f32 (IEEE division, not the approximate div.full).
tirx.kernel @fdiv_toward_zero(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.fdiv cta %r, %a, %b config {rounding_mode = "rz"} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @fdiv_toward_zero
// CHECK:       ptx.div_rnd "rz"
// CHECK-NOT:   arith.divf

// -----

// fma with a mode: fused, one rounding (fma.rm.f32), not a mulf then an addf.
tirx.kernel @fma_fused(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %c = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.fma cta %r, %a, %b, %c config {rounding_mode = "rm"} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @fma_fused
// CHECK:       ptx.fma_rnd "rm"
// CHECK-NOT:   arith.mulf
// CHECK-NOT:   arith.addf

// -----

// reciprocal: rcp.rp.f32.
tirx.kernel @reciprocal_up(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.reciprocal cta %r, %a config {rounding_mode = "rp"} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @reciprocal_up
// CHECK:       ptx.rcp_rnd "rp"
// CHECK-NOT:   arith.divf

// -----

// sqrt(a * scale + bias): the multiply, the add and the root each round toward zero.
tirx.kernel @sqrt_scaled(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %c = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %r = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  tirx.sqrt cta %r, %a bias %c scale %b config {rounding_mode = "rz"} : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @sqrt_scaled
// CHECK:       ptx.mul_rnd "rz"
// CHECK-NEXT:  ptx.add_rnd "rz"
// CHECK-NEXT:  ptx.sqrt_rnd "rz"
// CHECK-NOT:   math.sqrt

// -----

// A narrower destination: the f32 result converts with cvt.rz (rounding toward zero twice is once).
tirx.kernel @add_to_f16(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %b = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %h = tirx.alloc : !tirx.buffer<32x64xf16, shared>
  tirx.add cta %h, %a, %b config {rounding_mode = "rz"} : !tirx.buffer<32x64xf16, shared>, !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>
  tirx.return
}

// CHECK-LABEL: @add_to_f16
// CHECK:       ptx.add_rnd "rz"
// CHECK-NEXT:  ptx.cvt "rz.f16.f32"
// CHECK-NOT:   arith.truncf

// -----

// f16 operands widen to f32 (exact); never add.f16x2, which rounds to nearest only.
tirx.kernel @f16_operands_not_packed(%X: !tirx.buffer<32x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %g = tirx.alloc : !tirx.buffer<32x64xf16, shared>
  %h = tirx.alloc : !tirx.buffer<32x64xf16, shared>
  tirx.add cta %h, %g, %g config {rounding_mode = "rp"} : !tirx.buffer<32x64xf16, shared>, !tirx.buffer<32x64xf16, shared>, !tirx.buffer<32x64xf16, shared>
  tirx.return
}

// CHECK-LABEL: @f16_operands_not_packed
// CHECK-NOT:   cuda.pack
// CHECK:       ptx.add_rnd "rp"
// CHECK:       ptx.cvt "rp.f16.f32"
// CHECK-NOT:   cuda.pack
