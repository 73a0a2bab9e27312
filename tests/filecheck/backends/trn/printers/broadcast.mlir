// RUN: tirx-opt %s -t nki | filecheck %s
// A DMA that broadcasts an HBM row across partitions (nki.load %tile[P, N], %row[1, N]) reads the
// row with a stride-0 partition pair; broadcast_legacy.mlir prints the same kernel for the legacy
// API (tests/backends/trn/dispatch/test_partition_broadcast.py runs both on the NKI stand-in).

tirx.kernel @bias_rows(%Bias: !tirx.buffer<4x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %b = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %row = tirx.slice %Bias[2, 0] [1, 512] : !tirx.buffer<4x512xf32, global> -> !tirx.buffer<1x512xf32, global>
  nki.load %b, %row : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<1x512xf32, global>
  nki.store %Y, %b : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK:      def bias_rows(Bias):
// CHECK:        nisa.dma_copy(dst=b, src=Bias.ap(pattern=[[0, 128], [1, 512]], offset=1024))
// CHECK-NEXT:   nisa.dma_copy(dst=Y, src=b)
