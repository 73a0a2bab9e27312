// RUN: not tirx-opt %s --split-input-file -t ptx 2>&1 | filecheck %s
// ERROR: every section is refused by the PTX printer, with the op's location.

tirx.kernel @k() grid [1] threads [32] {
  tirx.return
}
// CHECK: errors.mlir:[[# @LINE - 3]]:1: error: 'tirx.kernel' op [ptx-print] the PTX printer needs a cuda target with an arch, but kernel @k has no target
// CHECK-NEXT: hint: add target "cuda -arch=sm_90a"

// -----

tirx.kernel @k() grid [1] threads [32] target "cuda -arch=sm_90a" {
  %pe = nvshmem.my_pe : i32
  // CHECK: errors.mlir:[[# @LINE - 1]]:3: error: 'nvshmem.my_pe' op [ptx-print] the PTX printer cannot print nvshmem.my_pe
  // CHECK-NEXT: hint: NVSHMEM's device API is not a PTX-callable ABI: print this kernel with -t cuda (and link with -rdc)
  tirx.return
}

// -----

tirx.kernel @k() grid [1] threads [32] target "cuda -arch=sm_80" {
  cuda.printf "hello\n"
  // CHECK: errors.mlir:[[# @LINE - 1]]:3: error: 'cuda.printf' op [ptx-print] the PTX printer does not print cuda.printf
  // CHECK-NEXT: hint: print this kernel with -t cuda
  tirx.return
}

// -----

tirx.kernel @a() grid [1] threads [32] target "cuda -arch=sm_80" {
  tirx.return
}
tirx.kernel @b() grid [1] threads [32] target "cuda -arch=sm_90a" {
// CHECK: errors.mlir:[[# @LINE - 1]]:1: error: 'tirx.kernel' op [ptx-print] one PTX module has one .target, but kernel @b targets sm_90a and an earlier one sm_80
  tirx.return
}

// -----

tirx.kernel @k(%X: !tirx.buffer<64xbf16, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %x = cuda.load %X, %c0 : !tirx.buffer<64xbf16, global>, index -> bf16
  %y = arith.addf %x, %x : bf16
  // CHECK: errors.mlir:[[# @LINE - 1]]:3: error: 'arith.addf' op [ptx-print] arith.addf on bf16 has no PTX form here
  // CHECK-NEXT: hint: compute in f32
  tirx.return
}

// -----

tirx.kernel @k(%X: !tirx.buffer<64x64xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %v = tirx.slice %X[0, 0] [8, 8] : !tirx.buffer<64x64xf32, global> -> !tirx.buffer<8x8xf32, global>
  // CHECK: errors.mlir:[[# @LINE - 1]]:3: error: 'tirx.slice' op [ptx-print] the PTX printer cannot print tirx.slice
  tirx.return
}

// -----

tirx.kernel @k() grid [1] threads [32] target "aws/trn1/trn1.2xlarge" {
// CHECK: errors.mlir:[[# @LINE - 1]]:1: error: 'tirx.kernel' op [ptx-print] the PTX printer needs a cuda target with an arch, but kernel @k has 'trn -tag=aws/trn1/trn1.2xlarge'
  tirx.return
}
