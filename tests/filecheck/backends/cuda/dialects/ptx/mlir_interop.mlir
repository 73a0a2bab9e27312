// REQUIRES: mlir-opt
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --verify-roundtrip -o /dev/null
// RUN: tirx-opt %s --print-op-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | tirx-opt | filecheck %s

// The generic form of ptx ops is valid MLIR: upstream mlir-opt reads it, and what it prints back
// reads as the same ops (modifiers are string properties, immediates i64 properties).

tirx.kernel @k() grid [1] threads [128] target "nvidia/nvidia-h100" {
  %p, %s, %r, %f, %pr = "test.op"() : () -> (i64, i32, i32, f32, i1)
  %v:4 = ptx.ld "global.nc.L1::no_allocate.v4.f32" [%p] : (i64) -> (f32, f32, f32, f32)
  ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster" [%s], [%p, {%r, %r}], [%s] : (i32, i64, i32, i32, i32) -> ()
  %ok = ptx.mbarrier_try_wait_parity "shared::cta" [%s], %r : (i32, i32) -> i1
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async_ss "m64n8k16.f32.bf16.bf16" {%f, %f, %f, %f}, %p, %p, %pr, 1, 1, 0, 1 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
  ptx.wgmma_wait_group 0
  tirx.return
}

// CHECK:      ptx.ld "global.nc.L1::no_allocate.v4.f32" [%{{.*}}] : (i64) -> (f32, f32, f32, f32)
// CHECK-NEXT: ptx.cp_async_bulk_tensor_g2s "2d.shared::cluster" [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}}], [%{{.*}}] : (i32, i64, i32, i32, i32) -> ()
// CHECK-NEXT: ptx.mbarrier_try_wait_parity "shared::cta"
// CHECK-NEXT: ptx.wgmma_fence
// CHECK-NEXT: ptx.wgmma_mma_async_ss "m64n8k16.f32.bf16.bf16" {{.*}}, 1, 1, 0, 1 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
// CHECK-NEXT: ptx.wgmma_wait_group 0
