// RUN: tirx-opt %s --split-input-file --print-diagnostics | filecheck %s

// The nki verifiers enforce the Trainium limits (docs/trn.md): each section breaks
// one rule; the message names the op, the operand, the limit and what to change. Inside a kernel
// the limits come from its target (last sections); outside one, the NeuronCore-v2 defaults hold.

%s, %w = "test.op"() : () -> (!tirx.buffer<256x4xf32, trn.sbuf>, !tirx.buffer<128x128xbf16, trn.sbuf>)
nki.reciprocal %s, %s : !tirx.buffer<256x4xf32, trn.sbuf>, !tirx.buffer<256x4xf32, trn.sbuf>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'nki.reciprocal' op operand 'dst' spans 256 partitions; the limit is 128 (default NeuronCore-v2 limits): split the partition dim

// -----

%p, %w, %x = "test.op"() : () -> (!tirx.buffer<128x1024xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x1024xbf16, trn.sbuf>)
nki.matmul %p, %w, %x : !tirx.buffer<128x1024xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x1024xbf16, trn.sbuf>
// CHECK: error: 'nki.matmul' op moving free size N is 1024; TensorE allows at most 512 (default NeuronCore-v2 limits): tile the matmul

// -----

%p, %w, %x = "test.op"() : () -> (!tirx.buffer<128x2048xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>)
%v = tirx.slice %p[0, 256] [128, 512] : !tirx.buffer<128x2048xf32, trn.psum> -> !tirx.buffer<128x512xf32, trn.psum>
nki.matmul %v, %w, %x accumulate : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>
// CHECK: error: 'nki.matmul' op operand 'dst' covers PSUM bytes [1024, 3071] of each partition, which crosses a 2048-byte bank boundary; a matmul output must stay inside one bank: at most 512 f32 elements, starting at a bank boundary

// -----

%p, %w, %x = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>)
nki.matmul %p, %w, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>
// CHECK: error: 'nki.matmul' op an f32 matmul operand needs an f32 partner, got stationary f32 and moving bf16

// -----

%p, %x = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xbf16, trn.psum>)
nki.matmul %p, %x, %x : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xbf16, trn.psum>, !tirx.buffer<128x512xbf16, trn.psum>
// CHECK: error: 'nki.matmul' op operand 'stationary' is in trn.psum; TensorE reads SBUF and writes PSUM

// -----

%s, %p = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>)
nki.tensor_tensor %s, %p, %p op add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x512xf32, trn.psum>
// CHECK: error: 'nki.tensor_tensor' op operands 'lhs', 'rhs' are all in trn.psum; at most one tensor input may be in PSUM: copy one to SBUF first

// -----

%s, %c = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<64x1xf32, trn.sbuf>)
nki.tensor_scalar %s, %s, %c op0 add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<64x1xf32, trn.sbuf>
// CHECK: error: 'nki.tensor_scalar' op operand 'operand0' is a [64, 1] tile; a per-partition operand is (128, 1): one value per partition (slice one column)

// -----

%s, %c = "test.op"() : () -> (!tirx.buffer<128x4x128xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>)
nki.tensor_reduce %c, %s op add axes [1] : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x4x128xf32, trn.sbuf>
// CHECK: error: 'nki.tensor_reduce' op axes [1] must be the trailing free dims of the rank-3 source (e.g. [2]); permute the view first

// -----

%s = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>)
nki.activation %s, %s func expm1 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK: error: 'nki.activation' op activation function 'expm1' is not one of copy, square, sigmoid,

// -----

%s, %p = "test.op"() : () -> (!tirx.buffer<128x512xi32, trn.sbuf>, !tirx.buffer<128x512xi32, trn.psum>)
nki.iota %p pattern [[1, 512]] : !tirx.buffer<128x512xi32, trn.psum>
// CHECK: error: 'nki.iota' op operand 'dst' is in trn.psum; iota runs on GpSimd, which uses SBUF only

// -----

%h, %p = "test.op"() : () -> (!tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.psum>)
nki.store %h, %p : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.psum>
// CHECK: error: 'nki.store' op operand 'src' is in trn.psum; nki.store moves trn.sbuf -> global (DMA cannot read or write PSUM: tensor_copy PSUM to SBUF first)

// -----

%s = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>)
%v = tirx.slice %s[32, 0] [64, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<64x512xf32, trn.sbuf>
nki.reciprocal %v, %v : !tirx.buffer<64x512xf32, trn.sbuf>, !tirx.buffer<64x512xf32, trn.sbuf>
// CHECK: error: 'nki.reciprocal' op operand 'dst' starts at partition 32; a tile of 64 partitions must start at partition 0, 64

// -----

tirx.kernel @k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %s = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = arith.constant 1.0 : f32
  nki.activation %s, %s func exp bias %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}
// CHECK: error: 'nki.activation' op a scalar bias needs NeuronCore-v3 or later (target 'aws/trn1/trn1.2xlarge'); pass a (128, 1) bias tile

// -----

tirx.kernel @k() grid [1] threads [1] target "aws/trn2/trn2.48xlarge" {
  %s = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %b = arith.constant 1.0 : f32
  nki.activation %s, %s func exp bias %b : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  tirx.return
}
// CHECK: tirx.kernel @k() grid [1] threads [1] target "aws/trn2/trn2.48xlarge" {
// CHECK: nki.activation %s, %s func exp bias %b

// -----

tirx.kernel @k() grid [1] threads [1] target "trn -sbuf_bytes_per_partition=65536" {
  %s = tirx.alloc : !tirx.buffer<128x32768xf32, trn.sbuf>
  nki.reciprocal %s, %s : !tirx.buffer<128x32768xf32, trn.sbuf>, !tirx.buffer<128x32768xf32, trn.sbuf>
  tirx.return
}
// CHECK: error: 'nki.reciprocal' op operand 'dst' views a trn.sbuf buffer of 131072 bytes per partition; trn.sbuf holds 65536 bytes per partition (target 'trn -sbuf_bytes_per_partition=65536'): make the buffer smaller
