"""CUDA lowering of TIRx's ``rounding_mode`` config on elementwise arithmetic (add, sub, mul,
fdiv, fma, reciprocal, sqrt; the variants of elementwise.py call `lower`): every f32 operation
of an element is one PTX ``<op>.<mode>.f32`` (``add``, ``sub``, ``mul``, ``div``, ``fma``
fused, ``rcp``, ``sqrt``; sqrt's scale multiply and bias add round in the mode too), and a
narrower destination gets one ``cvt.<mode>`` (`copy.rounded_conversion`). Rounding toward
zero, -inf or +inf to f32 then to f16/bf16 is rounding the exact value once (every f16/bf16
value is an f32 value); ``rn`` rounds twice, as the tile level does. Elements are never
computed two at a time (the packed ``add/mul.f16x2`` round to nearest only). The meaning both
interpreters share: tirx_mlir/interpreter/rounded_arith.py.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx_make
from tirx_mlir.backends.cuda.dispatch import pointwise
from tirx_mlir.backends.cuda.dispatch.copy import rounded_conversion
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dispatch.builders import elem_type

KIND = {T.AddOp: "add", T.SubOp: "sub", T.MulOp: "mul", T.FdivOp: "div", T.FmaOp: "fma",
        T.ReciprocalOp: "rcp", T.SqrtOp: "sqrt"}
"""The ops taking ``rounding_mode`` and their PTX instruction (`_rounded_f32` rows)."""


def _ptx(b: Builder, kind: str, xs, mode: str) -> SSAValue:
    return b.insert(ptx_make(f"{kind}_rnd", list(xs), rnd=mode)).results[0]


def lower(op, ctx) -> None:
    """``op`` (one of `KIND`, with a ``rounding_mode``) through the elementwise engine."""
    mode, kind = op.rounding_mode(), KIND[type(op)]
    store = rounded_conversion(elem_type(op.dst), mode)
    if isinstance(op, T.SqrtOp):
        has_bias, has_scale = op.bias is not None, op.scale is not None

        def sqrt(b: Builder, xs):
            x = xs[0]
            if has_scale:
                x = _ptx(b, "mul", [x, xs[1 + has_bias]], mode)
            if has_bias:
                x = _ptx(b, "add", [x, xs[1]], mode)
            return store(b, [_ptx(b, "sqrt", [x], mode)])
        pointwise.lower(op, ctx, op.dst, [op.src, op.bias, op.scale], sqrt, ctype=f32)
        return
    if isinstance(op, T.FmaOp):
        srcs = [op.input, op.scale, op.bias]
    elif isinstance(op, T.ReciprocalOp):
        srcs = [op.src]
    else:
        srcs = [op.lhs, op.rhs]
    pointwise.lower(op, ctx, op.dst, srcs,
                    lambda b, xs: store(b, [_ptx(b, kind, xs, mode)]), ctype=f32)
