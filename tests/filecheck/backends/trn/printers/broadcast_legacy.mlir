// RUN: tirx-opt %S/broadcast.mlir -t nki-legacy | filecheck %s
// The broadcasting DMA of broadcast.mlir in the legacy API: the row's subscript plus 0 times the
// destination's partition arange, so the loaded tile has the destination's shape [P, N].

// CHECK:      def bias_rows(Bias, Y: nt.mutable_tensor):
// CHECK:        [[P:i0.*]] = nl.arange(128)[:, None]
// CHECK-NEXT:   [[F:i1.*]] = nl.arange(512)[None, :]
// CHECK-NEXT:   b[[[P]], [[F]]] = nl.load(Bias[0 * [[P]] + 2, [[F]]])
