// RUN: not tirx-opt %s --split-input-file --pass-pipeline=trn -t nki 2>&1 | filecheck %s
// A rounding_mode config NKI cannot honour (it rounds to nearest even only) is an error at the op
// from the whole pipeline, never dropped: rz on a cast, and even rn on fma (NKI rounds the
// product before the add). dispatch/rounding.py; tests/backends/trn/dispatch/test_rounding.py.

tirx.kernel @cast_rz(%X: !tirx.buffer<128x512xf32, global>) -> (%Y: !tirx.buffer<128x512xbf16, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %h = tirx.alloc : !tirx.buffer<128x512xbf16, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.cast %h, %x config {rounding_mode = "rz"} : !tirx.buffer<128x512xbf16, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %Y, %h : !tirx.buffer<128x512xbf16, global>, !tirx.buffer<128x512xbf16, trn.sbuf>
  tirx.return
}

// CHECK:      rounding_invalid.mlir:10:3: error: 'tirx.cast' op tile dispatch failed: op=tirx.cast target=trn
// CHECK:      default (prio=10) {{ *}}| rejected: rounding_mode — tirx.cast config rounding_mode = "rz" cannot be honoured: NKI rounds to nearest even only; drop the config or make it "rn"
// CHECK-NOT:  Traceback

// -----

tirx.kernel @fma_rn(%X: !tirx.buffer<128x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %s = arith.constant 2.0 : f32
  tirx.copy %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.fma %y, %x, %s, %x config {rounding_mode = "rn"} : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.copy %Y, %y : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK:      rounding_invalid.mlir:26:3: error: 'tirx.fma' op tile dispatch failed: op=tirx.fma target=trn
// CHECK:      tensor_scalar (prio=0) {{ *}}| rejected: rounding_mode — tirx.fma config rounding_mode = "rn" cannot be honoured: NKI rounds the product to f32 before the add (the config asks for one rounding); drop the config to accept NKI's accuracy
