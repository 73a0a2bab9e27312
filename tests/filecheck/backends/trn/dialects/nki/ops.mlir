// RUN: TIRX_ROUNDTRIP
// RUN: TIRX_GENERIC_ROUNDTRIP

// Every nki op in custom form round-trips, and so does the generic form (CHECK-GENERIC).
// Outside a kernel the verifiers use the default (NeuronCore-v2) limits.

%s, %s2, %col, %p, %w, %x, %si, %m = "test.op"() : () -> (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>, !tirx.buffer<128x512xi32, trn.sbuf>, !tirx.buffer<128x512xui8, trn.sbuf>)
%h, %f, %i, %c = "test.op"() : () -> (!tirx.buffer<128x512xf32, global>, f32, i32, i1)
nki.load %s, %h : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
nki.store %h, %s : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
nki.dma_copy %s2, %s : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
nki.tensor_copy %s, %p engine scalar : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
nki.memset %p, %f : !tirx.buffer<128x512xf32, trn.psum>, f32
nki.iota %si pattern [[1, 512]] offset 3 channel_multiplier 512 : !tirx.buffer<128x512xi32, trn.sbuf>
nki.identity %w : !tirx.buffer<128x128xbf16, trn.sbuf>
nki.matmul %p, %w, %x accumulate_if %c : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>, i1
nki.activation %s, %p func exp bias %col scale %f : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
nki.activation_reduce %s, %col, %s2 func silu : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
nki.reciprocal %s, %s2 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
nki.tensor_reduce %col, %s op maximum axes [-1] negate keepdims : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
nki.tensor_tensor %s, %s2, %p op subtract : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
nki.tensor_scalar %s, %s2, %col op0 subtract reverse0 operand1 %f op1 multiply : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
nki.tensor_scalar_reduce %s, %col, %s2, %f op0 multiply reduce add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
nki.scalar_tensor_tensor %s, %s2, %col, %p op0 add op1 multiply reverse1 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
nki.select %s, %m, %s2, %f : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xui8, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
nki.affine_select %s, %s2 pattern [[-1, 512]] channel_multiplier 1 cmp greater_equal on_false -inf : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>

// CHECK:      nki.load %s, %h : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
// CHECK-NEXT: nki.store %h, %s : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: nki.dma_copy %s2, %s : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: nki.tensor_copy %s, %p engine scalar : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
// CHECK-NEXT: nki.memset %p, %f : !tirx.buffer<128x512xf32, trn.psum>, f32
// CHECK-NEXT: nki.iota %si pattern [[1, 512]] offset 3 channel_multiplier 512 : !tirx.buffer<128x512xi32, trn.sbuf>
// CHECK-NEXT: nki.identity %w : !tirx.buffer<128x128xbf16, trn.sbuf>
// CHECK-NEXT: nki.matmul %p, %w, %x accumulate_if %c : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>, i1
// CHECK-NEXT: nki.activation %s, %p func exp bias %col scale %f : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
// CHECK-NEXT: nki.activation_reduce %s, %col, %s2 func silu : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: nki.reciprocal %s, %s2 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: nki.tensor_reduce %col, %s op maximum axes [-1] negate keepdims : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
// CHECK-NEXT: nki.tensor_tensor %s, %s2, %p op subtract : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
// CHECK-NEXT: nki.tensor_scalar %s, %s2, %col op0 subtract reverse0 operand1 %f op1 multiply : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, f32
// CHECK-NEXT: nki.tensor_scalar_reduce %s, %col, %s2, %f op0 multiply reduce add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
// CHECK-NEXT: nki.scalar_tensor_tensor %s, %s2, %col, %p op0 add op1 multiply reverse1 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
// CHECK-NEXT: nki.select %s, %m, %s2, %f : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xui8, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
// CHECK-NEXT: nki.affine_select %s, %s2 pattern [[-1, 512]] channel_multiplier 1 cmp greater_equal on_false -inf : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>

// CHECK-GENERIC: "nki.load"(%s, %h) : (!tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>) -> ()
// CHECK-GENERIC: "nki.tensor_copy"(%s, %p) <{engine = "scalar"}>
// CHECK-GENERIC: "nki.iota"(%si) <{pattern = array<i64: 1, 512>, offset = 3 : i64, channel_multiplier = 512 : i64}>
// CHECK-GENERIC: "nki.matmul"(%p, %w, %x, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
// CHECK-GENERIC: "nki.activation"(%s, %p, %col, %f) <{func = "exp", operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
// CHECK-GENERIC: "nki.tensor_reduce"(%col, %s) <{op = "maximum", axes = array<i64: -1>, negate, keepdims}>
// CHECK-GENERIC: "nki.tensor_scalar"(%s, %s2, %col, %f) <{op0 = "subtract", reverse0, op1 = "multiply", operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
// CHECK-GENERIC: "nki.affine_select"(%s, %s2) <{pattern = array<i64: -1, 512>, channel_multiplier = 1 : i64, cmp = "greater_equal", on_false = 0xff800000 : f32}>
