// REQUIRES: mlir-opt
// RUN: tirx-opt %s --pass-pipeline=trn --print-op-generic | mlir-opt --allow-unregistered-dialect --verify-roundtrip -o /dev/null
// RUN: tirx-opt %s --pass-pipeline=trn --print-op-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | tirx-opt -t nki | filecheck %s

// The lowered (nki-level, allocated) IR is valid MLIR too: upstream mlir-opt reads our generic
// form, and what it prints back still prints as the same NKI kernel.

tirx.kernel @matmul(%A: !tirx.buffer<256x128xbf16, global>, %B: !tirx.buffer<256x512xbf16, global>) -> (%C: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<256x128xbf16, trn.sbuf>
  %b = tirx.alloc : !tirx.buffer<256x512xbf16, trn.sbuf>
  %c = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %a, %A : !tirx.buffer<256x128xbf16, trn.sbuf>, !tirx.buffer<256x128xbf16, global>
  tirx.copy %b, %B : !tirx.buffer<256x512xbf16, trn.sbuf>, !tirx.buffer<256x512xbf16, global>
  tirx.gemm %c, %a, %b transpose_a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<256x128xbf16, trn.sbuf>, !tirx.buffer<256x512xbf16, trn.sbuf>
  tirx.copy %C, %c : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK:     def matmul({{[a-z0-9_]+}}, {{[a-z0-9_]+}}):
// CHECK:       nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum
// CHECK:       nisa.nc_matmul(
// CHECK-SAME:  accumulate=(
// CHECK:       nisa.tensor_copy(
// CHECK:       return {{[a-z0-9_]+}}
