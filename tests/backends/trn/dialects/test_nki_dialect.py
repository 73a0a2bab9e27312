"""The nki dialect: custom and generic round trips of every op, and the hardware-limit
verifiers (each rule has a case that must fail with a message naming the limit)."""

from __future__ import annotations

import pytest
from tirx_testing.trn import TILES, kernel, parse, print_ir
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki import NKI_OPS

T = TILES

EVERY_OP = f"""
  nki.load %s, %av : {T['s']}, !tirx.buffer<128x512xf32, global>
  nki.store %bv, %s : !tirx.buffer<128x512xf32, global>, {T['s']}
  nki.dma_copy %s2, %s : {T['s']}, {T['s']}
  nki.tensor_copy %sh, %p engine scalar : {T['sh']}, {T['p']}
  nki.memset %p, %one : {T['p']}, f32
  nki.memset %si, %i7 engine gpsimd : {T['si']}, i32
  nki.iota %si pattern [[1, 512]] offset 3 channel_multiplier 512 : {T['si']}
  nki.identity %w : {T['w']}
  nki.matmul %p, %w, %x : {T['p']}, {T['w']}, {T['x']}
  nki.matmul %p, %w, %x accumulate : {T['p']}, {T['w']}, {T['x']}
  nki.matmul %p, %w, %x accumulate_if %true : {T['p']}, {T['w']}, {T['x']}, i1
  nki.transpose %pt, %sq128 : !tirx.buffer<128x128xf32, trn.psum>, {T['sq128']}
  nki.activation %s, %p func gelu_apprx_tanh bias %col scale %two : {T['s']}, {T['p']}, {T['col']}, f32
  nki.activation_reduce %s, %col, %s2 func exp scale %col : {T['s']}, {T['col']}, {T['s']}, {T['col']}
  nki.reciprocal %col, %col : {T['col']}, {T['col']}
  nki.tensor_reduce %col, %sq op maximum axes [1, 2] negate : {T['col']}, {T['sq']}
  nki.tensor_reduce %col, %s op add axes [-1] keepdims : {T['col']}, {T['s']}
  nki.tensor_tensor %s, %s, %p op subtract : {T['s']}, {T['s']}, {T['p']}
  nki.tensor_tensor %s, %sq, %s2 op multiply : {T['s']}, {T['sq']}, {T['s']}
  nki.tensor_scalar %s, %s2, %col op0 subtract reverse0 operand1 %two op1 multiply reverse1 : {T['s']}, {T['s']}, {T['col']}, f32
  nki.tensor_scalar %si, %si, %i7 op0 bitwise_and : {T['si']}, {T['si']}, i32
  nki.tensor_scalar_reduce %s, %col, %s2, %two op0 multiply reduce maximum reverse0 : {T['s']}, {T['col']}, {T['s']}, f32
  nki.scalar_tensor_tensor %s, %s2, %col, %p op0 add op1 multiply reverse1 : {T['s']}, {T['s']}, {T['col']}, {T['p']}
  nki.select %s, %mask, %s2, %one : {T['s']}, {T['mask']}, {T['s']}, f32
  nki.affine_select %s, %s2 pattern [[-1, 512]] channel_multiplier 1 cmp greater_equal on_false -inf : {T['s']}, {T['s']}
"""

VIEWS = """
  %av = tirx.slice %A[%c0, 0] [128, 512] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  %bv = tirx.slice %B[128, 0] [128, 512] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  %pt = tirx.alloc : !tirx.buffer<128x128xf32, trn.psum>
"""


def test_every_op_is_covered():
    used = {line.split()[0] for line in EVERY_OP.strip().splitlines()}
    assert used == {op.name for op in NKI_OPS}


def test_custom_round_trip_is_stable():
    module = parse(kernel(VIEWS + EVERY_OP))
    text = print_ir(module)
    assert print_ir(parse(text)) == text
    assert "op0 subtract reverse0 operand1 %two op1 multiply reverse1" in text
    assert "on_false -inf" in text and "pattern [[-1, 512]]" in text


def test_generic_round_trip():
    module = parse(kernel(VIEWS + EVERY_OP))
    generic = print_ir(module, generic=True)
    assert '"nki.matmul"' in generic
    assert print_ir(parse(generic)) == print_ir(module)


def _error(body: str, target: str | None = "aws/trn1/trn1.2xlarge", **kw) -> str:
    with pytest.raises(VerifyException) as info:
        parse(kernel(body, target=target, **kw))
    return str(info.value)


BAD = [
    # partitions, ranks, memory
    ("nki.reciprocal %big, %big : !tirx.buffer<256x4xf32, trn.sbuf>, !tirx.buffer<256x4xf32, trn.sbuf>",
     "spans 256 partitions; the limit is 128", {"big": "!tirx.buffer<256x4xf32, trn.sbuf>"}),
    ("nki.reciprocal %v1, %v1 : !tirx.buffer<128xf32, trn.sbuf>, !tirx.buffer<128xf32, trn.sbuf>",
     "1-D trn.sbuf tile", {"v1": "!tirx.buffer<128xf32, trn.sbuf>"}),
    ("nki.reciprocal %hp, %hp : !tirx.buffer<128x8192xf32, trn.psum>, !tirx.buffer<128x8192xf32, trn.psum>",
     "trn.psum holds 16384 bytes per partition", {"hp": "!tirx.buffer<128x8192xf32, trn.psum>"}),
    # matmul limits and placement
    (f"nki.matmul %p, %x, %x : {T['p']}, {T['x']}, {T['x']}", "stationary free size M is 512", {}),
    ("nki.matmul %p, %w2, %x2 : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<64x128xbf16, trn.sbuf>, !tirx.buffer<64x1024xbf16, trn.sbuf>",
     "moving free size N is 1024", {"w2": "!tirx.buffer<64x128xbf16, trn.sbuf>",
                                     "x2": "!tirx.buffer<64x1024xbf16, trn.sbuf>"}),
    (f"nki.matmul %s, %w, %x : {T['s']}, {T['w']}, {T['x']}", "TensorE reads SBUF and writes PSUM", {}),
    (f"nki.matmul %p, %w, %s : {T['p']}, {T['w']}, {T['s']}", "an f32 matmul operand needs an f32 partner", {}),
    (f"nki.matmul %p, %w, %si : {T['p']}, {T['w']}, {T['si']}", "TensorE multiplies", {}),
    ("nki.matmul %pb, %w, %x : !tirx.buffer<128x512xbf16, trn.psum>, {w}, {x}".format(**T),
     "matmul writes f32 on NeuronCore-v2", {"pb": "!tirx.buffer<128x512xbf16, trn.psum>"}),
    ("%pv = tirx.slice %pbig[0, 256] [128, 512] : !tirx.buffer<128x2048xf32, trn.psum> -> !tirx.buffer<128x512xf32, trn.psum>\n"
     f"  nki.matmul %pv, %w, %x : {T['p']}, {T['w']}, {T['x']}", "crosses a 2048-byte bank boundary", {}),
    (f"nki.matmul %p, %w, %x accumulate accumulate_if %true : {T['p']}, {T['w']}, {T['x']}, i1",
     "either `accumulate` or `accumulate_if", {}),
    (f"nki.matmul %p, %sq128, %x : {T['p']}, {T['sq128']}, {T['x']}", "f32 matmul operand", {}),
    # same P / free counts, PSUM pairs
    (f"nki.tensor_tensor %s, %s, %col op add : {T['s']}, {T['s']}, {T['col']}",
     "free elements per partition", {}),
    (f"nki.tensor_tensor %s, %p, %p op add : {T['s']}, {T['p']}, {T['p']}", "at most one tensor input may be in PSUM", {}),
    (f"nki.tensor_tensor %s, %s, %s op abs : {T['s']}, {T['s']}, {T['s']}", "is unary", {}),
    (f"nki.tensor_tensor %s, %s, %s op bitwise_and : {T['s']}, {T['s']}, {T['s']}", "raw integer bits", {}),
    (f"nki.tensor_tensor %s, %s, %p op power : {T['s']}, {T['s']}, {T['p']}", "GpSimd, which uses SBUF only", {}),
    (f"nki.tensor_tensor %s, %s, %s op fdiv : {T['s']}, {T['s']}, {T['s']}", "is not one of", {}),
    # reductions
    (f"nki.tensor_reduce %col, %sq op add axes [1] : {T['col']}, {T['sq']}", "trailing free dims", {}),
    (f"nki.tensor_reduce %col, %s op add axes [0] : {T['col']}, {T['s']}", "axis 0 is the partition dim", {}),
    (f"nki.tensor_reduce %s, %sq op add axes [2] : {T['s']}, {T['sq']}", "dst needs 128 partitions and 4 free", {}),
    (f"nki.tensor_reduce %col, %s op divide axes [1] keepdims : {T['col']}, {T['s']}", "cannot reduce", {}),
    # activation
    (f"nki.activation %s, %s func expm1 : {T['s']}, {T['s']}", "activation function 'expm1'", {}),
    (f"nki.activation %s, %s func exp bias %one : {T['s']}, {T['s']}, f32", "scalar bias needs NeuronCore-v3", {}),
    (f"nki.activation %s, %s func exp bias %s2 : {T['s']}, {T['s']}, {T['s']}", "per-partition operand is (128, 1)", {}),
    (f"nki.activation %s, %s func exp scale %icol : {T['s']}, {T['s']}, {T['icol']}", "must be f32", {}),
    (f"nki.activation %s, %s func reciprocal bias %col : {T['s']}, {T['s']}, {T['col']}", "no bias on NeuronCore-v2", {}),
    (f"nki.activation %s, %A func exp : {T['s']}, !tirx.buffer<256x512xf32, global>",
     "read and write SBUF or PSUM", {}),
    # tensor_scalar
    (f"nki.tensor_scalar %s, %s, %col op0 add op1 multiply : {T['s']}, {T['s']}, {T['col']}", "op1 and operand1 come together", {}),
    (f"nki.tensor_scalar %si, %si, %i7 op0 add operand1 %i7 op1 bitwise_and : {T['si']}, {T['si']}, i32, i32",
     "must both be arithmetic or both bit-vector", {}),
    (f"nki.tensor_scalar %s, %s, %i7 op0 add : {T['s']}, {T['s']}, i32", "must be an f32 scalar", {}),
    (f"nki.scalar_tensor_tensor %s, %p, %col, %p op0 add op1 add : {T['s']}, {T['p']}, {T['col']}, {T['p']}",
     "at most one tensor input may be in PSUM", {}),
    (f"nki.tensor_scalar_reduce %s, %col, %s, %one op0 multiply reduce subtract : {T['s']}, {T['col']}, {T['s']}, f32",
     "reduce 'subtract' is not one of", {}),
    # data movement and fills
    (f"nki.store %A, %p : !tirx.buffer<256x512xf32, global>, {T['p']}", "DMA cannot read or write PSUM", {}),
    (f"nki.load %s, %A : {T['s']}, !tirx.buffer<256x512xf32, global>", "DMA endpoints", {}),
    (f"nki.tensor_copy %s, %p engine gpsimd : {T['s']}, {T['p']}", "GpSimd cannot access PSUM", {}),
    (f"nki.memset %si, %one : {T['si']}, f32", "must match the tile's element kind", {}),
    (f"nki.iota %p pattern [[1, 512]] : {T['p']}", "GpSimd, which uses SBUF only", {}),
    (f"nki.iota %s pattern [[1, 500]] : {T['s']}", "covers 500 elements", {}),
    (f"nki.identity %s : {T['s']}", "square [n, n]", {}),
    (f"nki.affine_select %s, %s pattern [[-1, 512]] cmp less on_false 0.0 : {T['s']}, {T['s']}", "cmp 'less'", {}),
    (f"nki.select %s, %s2, %s, %one : {T['s']}, {T['s']}, {T['s']}, f32", "predicate works on raw integer bits", {}),
    (f"nki.transpose %s, %s : {T['s']}, {T['s']}", "vector-engine transpose handles at most 32", {}),
    # views
    ("%v = tirx.slice %s[32, 0] [64, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<64x512xf32, trn.sbuf>\n"
     "  nki.reciprocal %v, %v : !tirx.buffer<64x512xf32, trn.sbuf>, !tirx.buffer<64x512xf32, trn.sbuf>",
     "must start at partition 0, 64", {}),
    ("%v = tirx.transpose %sq128 [1, 0] : !tirx.buffer<128x128xf32, trn.sbuf> -> !tirx.buffer<128x128xf32, trn.sbuf>\n"
     "  nki.reciprocal %v, %v : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, trn.sbuf>",
     "must walk the partitions", {}),
]


@pytest.mark.parametrize("body,message,extra", BAD, ids=[m for _, m, _ in BAD])
def test_verifier_rejects(body, message, extra):
    assert message in _error("  " + body, extra_tiles=extra)


def test_limits_follow_the_target():
    body = f"  nki.activation %s, %s func exp bias %one : {T['s']}, {T['s']}, f32"
    parse(kernel(body, target="aws/trn2/trn2.48xlarge"))  # scalar bias is fine on v3
    parse(kernel(body, target="trn -act_bias_scalar_ok=true"))
    assert "NeuronCore-v3" in _error(body, target=None)  # defaults: v2
    small = "trn -partitions=64"
    assert "the limit is 64" in _error(f"  nki.reciprocal %s, %s : {T['s']}, {T['s']}", target=small)


def test_nki_ops_need_a_trn_target():
    assert "need a trn target" in _error(f"  nki.reciprocal %s, %s : {T['s']}, {T['s']}",
                                         target="llvm")


def test_module_target_attribute_is_used():
    body = f"  nki.activation %s, %s func exp bias %one : {T['s']}, {T['s']}, f32"
    text = 'builtin.module attributes {tirx.target = #tirx.target<"aws/trn2/trn2.48xlarge">} {\n' \
        + kernel(body, target=None) + "}\n"
    parse(text)


def test_builders_make_verified_ops():
    from xdsl.dialects.builtin import f32
    from xdsl.utils.test_value import create_ssa_value

    from tirx_mlir.backends.trn.dialects.nki import TensorReduceOp, TensorScalarOp
    from tirx_mlir.dialects.tirx.attributes import BufferType

    s = create_ssa_value(BufferType([128, 512], f32, "trn.sbuf"))
    c = create_ssa_value(BufferType([128, 1], f32, "trn.sbuf"))
    op = TensorReduceOp(c, s, op="maximum", axes=[-1], negate=True, keepdims=True)
    op.verify()
    assert op.normalized_axes() == (1,) and op.flag("negate")
    ts = TensorScalarOp(s, s, c, None, op0="subtract", reverse0=True)
    ts.verify()
    with pytest.raises(ValueError, match="has no property 'op'"):
        TensorScalarOp(s, s, c, op="add")
