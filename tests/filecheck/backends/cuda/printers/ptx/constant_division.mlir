// RUN: tirx-opt %s -t ptx | filecheck %s

// 64-bit divui/remui by a constant print without div.u64/rem.u64 (ptxas calls a division
// subroutine for those): a power of two is a shift or a mask, any other divisor a multiply-high
// (printers/ptx/constant_division.py); a divisor that is not a constant keeps div.u64.

tirx.kernel @index_division(%X: !tirx.buffer<64xi64, global>) -> (%Y: !tirx.buffer<64xi64, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %tx = cuda.thread_idx x : index
  %c32 = arith.constant 32 : index
  %c3 = arith.constant 3 : index
  %warp = arith.divui %tx, %c32 : index
  %lane = arith.remui %tx, %c32 : index
  %third = arith.divui %tx, %c3 : index
  %stage = arith.remui %tx, %c3 : index
  %any = arith.divui %c32, %tx : index
  %s1 = arith.addi %warp, %lane : index
  %s2 = arith.addi %s1, %third : index
  %s3 = arith.addi %s2, %stage : index
  %s4 = arith.addi %s3, %any : index
  %v = arith.index_cast %s4 : index to i64
  cuda.store %Y, %tx, %v : !tirx.buffer<64xi64, global>, index, i64
  tirx.return
}

// CHECK-LABEL: .visible .entry index_division(
// CHECK:      shr.u64 {{%rd[0-9]+}}, [[TX:%rd[0-9]+]], 5;
// CHECK-NEXT: and.b64 {{%rd[0-9]+}}, [[TX]], 31;
// CHECK:      mul.hi.u64 [[T:%rd[0-9]+]], [[TX]], 6148914691236517206;
// CHECK-NEXT: sub.s64 [[U:%rd[0-9]+]], [[TX]], [[T]];
// CHECK-NEXT: shr.u64 [[U]], [[U]], 1;
// CHECK-NEXT: add.s64 [[U]], [[U]], [[T]];
// CHECK-NEXT: shr.u64 {{%rd[0-9]+}}, [[U]], 1;
// CHECK:      mul.hi.u64
// CHECK:      mul.lo.s64 [[P:%rd[0-9]+]], {{%rd[0-9]+}}, 3;
// CHECK-NEXT: sub.s64 {{%rd[0-9]+}}, [[TX]], [[P]];
// CHECK:      div.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[TX]];
