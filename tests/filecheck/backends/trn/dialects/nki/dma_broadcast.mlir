// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s
// A DMA may broadcast one HBM row [1, F...] to every partition of an on-chip [P, F...] tile (a
// stride-0 partition access pattern on HBM); no other shape mismatch is a DMA.

%t, %r = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>)
nki.load %t, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
nki.dma_copy %t, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
// CHECK:      nki.load %t, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
// CHECK-NEXT: nki.dma_copy %t, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>

// -----

%t, %r = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<2x512xf32, global>)
nki.load %t, %r : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<2x512xf32, global>
// CHECK: dma_broadcast.mlir:[[# @LINE - 1]]:1: error: 'nki.load' op the DMA endpoints: shapes [128, 512] and [2, 512] differ (after dropping unit dims); slice the operands to the same shape

// -----

%h, %s = "test.op"() : () -> (!tirx.buffer<128x512xf32, global>, !tirx.buffer<1x512xf32, trn.sbuf>)
nki.store %h, %s : !tirx.buffer<128x512xf32, global>, !tirx.buffer<1x512xf32, trn.sbuf>
// CHECK: dma_broadcast.mlir:[[# @LINE - 1]]:1: error: 'nki.store' op the DMA endpoints: shapes [128, 512] and [1, 512] differ (after dropping unit dims); slice the operands to the same shape
