// RUN: tirx-opt %s --split-input-file --print-diagnostics -p tirx-check-bounds | filecheck %s
// tirx-check-bounds on guarded slices (an index-valued size): the access [offset, offset +
// size - 1] is checked for every value of the loop variables, so min(128, n - i * 128) is
// proved in range and a guard that leaves the buffer, or exceeds its maximum, is an error
// naming the iteration.

tirx.kernel @proved(%X: !tirx.buffer<1000x64xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %v = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
  }
  tirx.return
}

// CHECK-LABEL: tirx.kernel @proved
// CHECK: tirx.slice %X[%row, 0] [%n, 64]

// -----

tirx.kernel @past_the_end(%X: !tirx.buffer<1000x64xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1024, %row : index
    %n = arith.minsi %c128, %left : index
    %v = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
  }
  tirx.return
}

// CHECK: check_bounds_guards.mlir:[[# @LINE - 5]]:5: error: {{.*}}[out-of-bounds] dim 0: elements [896, 1023] are out of bounds for extent 1000 (when %i = 7)

// -----

tirx.kernel @above_the_maximum(%X: !tirx.buffer<1000x64xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %half = arith.floordivsi %i, %c2 : index
    %n = arith.addi %half, %c64 : index
    %v = tirx.slice %X[0, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<64x64xf32, global>
  }
  tirx.return
}

// CHECK: check_bounds_guards.mlir:[[# @LINE - 5]]:5: error: {{.*}}[out-of-bounds] dim 0: the guarded size is 65 (when %i = 2), outside [0, 64] (the result type's extent is its maximum)
