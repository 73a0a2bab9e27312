"""CUDA variants of the elementwise tile primitives: zero, fill, memset, reciprocal, silu, cast,
sqrt, exp, exp2, log2 (with bias and scale), add, sub, mul, fdiv, maximum, minimum, fma.

TIRx registers ``reg`` (registers) and ``smem`` (shared memory) variants at priority 10 for each
(apache/tvm ``python/tvm/backend/cuda/tile_primitive/elementwise/``); ours are the same two
names over one engine (`pointwise.lower`), plus ``gmem`` for global operands TIRx leaves to the
user. Broadcasting is NumPy's; each element is computed in f32 (f64 when an operand is f64;
integers in their type) and rounded to the destination's type on store.

Scalar functions (`SCALAR`), stated once: ``maximum``/``minimum`` propagate NaN
(``arith.maximumf``, as numpy's); ``silu(x) = x / (1 + exp(-x))``; ``reciprocal(x) = 1 / x``
(IEEE division); ``fma`` is ``input * scale + bias``. Destinations: ``reg`` writes registers,
``smem`` shared memory, ``gmem`` (priority 5) global memory. TIRx's ``rounding_mode`` config on
add, sub, mul, fdiv, fma, reciprocal and sqrt: `rounded_arith` (one PTX ``<op>.<mode>.f32``
per operation).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue

from tirx_mlir.backends.cuda.dispatch import common, pointwise, rounded_arith
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.op_build import arith_binary, new_op
from tirx_mlir.dispatch import exec_scope_in, fail
from tirx_mlir.dispatch.builders import elem_type

SCOPES = exec_scope_in("thread", "warp", "warpgroup", "cta")


def _const(b: Builder, value: float, t: Attribute) -> SSAValue:
    attr = FloatAttr(value, t) if isinstance(t, AnyFloat) else IntegerAttr(int(value), t)
    return b.insert(new_op(arith.ConstantOp, (), (attr.get_type(),), {"value": attr})).result


def _binary(float_op, int_op):
    def build(b: Builder, xs):
        lhs, rhs = xs
        if isinstance(lhs.type, AnyFloat):
            return b.insert(arith_binary(float_op, lhs, rhs)).result
        if int_op is None:
            fail("this operation needs floating-point operands")
        return b.insert(arith_binary(int_op, lhs, rhs)).result
    return build


def _silu(b: Builder, xs):
    x = xs[0]
    neg = b.insert(arith.NegfOp(x)).result
    e = b.insert(_math_op("ExpOp")(neg)).result
    den = b.insert(arith.AddfOp(_const(b, 1.0, x.type), e)).result
    return b.insert(arith.DivfOp(x, den)).result


def _reciprocal(b: Builder, xs):
    return b.insert(arith_binary(arith.DivfOp, _const(b, 1.0, xs[0].type), xs[0])).result


def _fma(b: Builder, xs):
    x, scale, bias = xs
    if isinstance(x.type, IntegerType):
        return b.insert(arith_binary(arith.AddiOp, b.insert(
            arith_binary(arith.MuliOp, x, scale)).result, bias)).result
    return b.insert(arith_binary(arith.AddfOp, b.insert(
        arith_binary(arith.MulfOp, x, scale)).result, bias)).result


BINARY = {
    T.AddOp: _binary(arith.AddfOp, arith.AddiOp),
    T.SubOp: _binary(arith.SubfOp, arith.SubiOp),
    T.MulOp: _binary(arith.MulfOp, arith.MuliOp),
    T.FdivOp: _binary(arith.DivfOp, None),
    T.MaximumOp: _binary(arith.MaximumfOp, arith.MaxSIOp),
    T.MinimumOp: _binary(arith.MinimumfOp, arith.MinSIOp),
}
PACKED = {T.AddOp: arith.AddfOp, T.SubOp: arith.SubfOp, T.MulOp: arith.MulfOp,
          T.MaximumOp: arith.MaximumfOp, T.MinimumOp: arith.MinimumfOp}
"""The binary ops computed two f16/bf16 elements at a time (``add.rn.f16x2``, ``__hadd2``...)
where every operand is a tile of the destination's type (`pointwise._packable`)."""
UNARY_BIAS_SCALE = {T.SqrtOp: "SqrtOp", T.ExpOp: "ExpOp", T.Exp2Op: "Exp2Op",
                    T.Log2Op: "Log2Op"}
"""tile op -> the xDSL math op computing it, by name (`_math_op`)."""


def _math_op(name: str) -> type:
    """xDSL's ``math.<name>``, imported on first use: setting up the math dialect costs tens of
    milliseconds, which a kernel with no exp, sqrt, log or silu never needs."""
    from xdsl.dialects import math

    return getattr(math, name)


def _with_bias_scale(f):
    """``f(x * scale + bias)`` with the optional operands (``xs`` = x[, bias][, scale])."""
    def build(b: Builder, xs, has_bias: bool, has_scale: bool):
        x = xs[0]
        k = 1
        bias = xs[k] if has_bias else None
        k += has_bias
        scale = xs[k] if has_scale else None
        if scale is not None:
            x = b.insert(arith.MulfOp(x, scale)).result
        if bias is not None:
            x = b.insert(arith.AddfOp(x, bias)).result
        return b.insert(f(x)).result
    return build


def _lower(op, ctx) -> None:
    """One engine for every elementwise op (the operands and scalar function by op class)."""
    if type(op) in rounded_arith.KIND and op.rounds():
        rounded_arith.lower(op, ctx)
        return
    if isinstance(op, (T.ZeroOp,)):
        t = elem_type(op.dst)
        pointwise.lower(op, ctx, op.dst, [], lambda b, xs: _const(b, 0.0, t), ctype=t)
    elif isinstance(op, (T.FillOp, T.MemsetOp)):
        pointwise.lower(op, ctx, op.dst, [op.value], lambda b, xs: xs[0])
    elif isinstance(op, T.CastOp):
        pointwise.lower(op, ctx, op.dst, [op.src], lambda b, xs: xs[0],
                        ctype=pointwise.compute_type([elem_type(op.src)]), convert_pairs=True)
    elif isinstance(op, T.ReciprocalOp):
        pointwise.lower(op, ctx, op.dst, [op.src], _reciprocal)
    elif isinstance(op, T.SiluOp):
        pointwise.lower(op, ctx, op.dst, [op.src], _silu)
    elif type(op) in UNARY_BIAS_SCALE:
        fn = _with_bias_scale(_math_op(UNARY_BIAS_SCALE[type(op)]))
        hb, hs = op.bias is not None, op.scale is not None
        pointwise.lower(op, ctx, op.dst, [op.src, op.bias, op.scale],
                        lambda b, xs: fn(b, xs, hb, hs))
    elif type(op) in BINARY:
        packed = PACKED.get(type(op))
        pointwise.lower(op, ctx, op.dst, [op.lhs, op.rhs], BINARY[type(op)],
                        packed=None if packed is None else
                        (lambda b, xs, f=packed: b.insert(f(*xs)).result))
    elif isinstance(op, T.FmaOp):
        pointwise.lower(op, ctx, op.dst, [op.input, op.scale, op.bias], _fma)
    else:  # pragma: no cover - the registration below lists the classes
        fail(f"{op.name} has no CUDA elementwise lowering")


OPS: tuple[type, ...] = (T.ZeroOp, T.FillOp, T.MemsetOp, T.CastOp, T.ReciprocalOp, T.SiluOp,
                         *UNARY_BIAS_SCALE, *BINARY, T.FmaOp)


ANY_SCOPE = common.operands_in(GLOBAL, LOCAL, *SHARED_SCOPES)

for _cls in OPS:
    _config = ("rounding_mode",) if _cls in rounded_arith.KIND else ()
    common.cuda_variant(_cls, "reg", 10, [SCOPES, common.ONE_DIM_BLOCK, ANY_SCOPE,
                                          common.dst_in((LOCAL,))], config=_config)(_lower)
    common.cuda_variant(_cls, "smem", 10, [SCOPES, common.ONE_DIM_BLOCK, ANY_SCOPE,
                                           common.dst_in(SHARED_SCOPES)], config=_config)(_lower)
    common.cuda_variant(_cls, "gmem", 5, [SCOPES, common.ONE_DIM_BLOCK, ANY_SCOPE,
                                          common.dst_in((GLOBAL,))], config=_config)(_lower)
