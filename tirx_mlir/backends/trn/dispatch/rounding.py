"""Which of TIRx's ``rounding_mode`` configs a Trainium lowering honours.

NKI's engines compute in f32 and round every result (and every conversion: ``tensor_copy``,
a DMA's cast) to nearest even; no instruction takes another rounding mode. So:

* ``rn`` on tirx.cast, add, sub and mul is what the one NKI instruction does (an f32 operation
  rounded to nearest even, then the store to the destination type rounded the same way):
  accepted, and lowered as without the config;
* ``rz``, ``rm`` and ``rp`` are refused on every op;
* fdiv, reciprocal, sqrt and fma refuse even ``rn``, which asks for a correctly rounded f32
  result the NKI lowering does not give: fdiv of two tiles is a reciprocal then a multiply
  (two roundings), VectorE's reciprocal is not documented as correctly rounded, ScalarE's sqrt
  is a piecewise polynomial, and fma rounds the product to f32 before the add (the config
  asks for one rounding). Without the config these ops are accepted at NKI's accuracy.

A refused config is a dispatch failure at the op, naming the op and what to change
(`honours_rounding`); a ``compose_op`` body holding such an op is not fused (its ops are
dispatched one by one and fail there).
"""

from __future__ import annotations

from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch import predicate

NEAREST_EVEN_OPS = (T.CastOp, T.AddOp, T.SubOp, T.MulOp)
"""The ops whose NKI lowering is one f32 operation rounded to nearest even: ``rn`` accepted."""

NOT_CORRECTLY_ROUNDED = {
    T.FdivOp: "NKI divides by a reciprocal then a multiply, rounding twice",
    T.ReciprocalOp: "NKI's reciprocal (VectorE) is not documented as correctly rounded",
    T.SqrtOp: "NKI's sqrt (ScalarE activation) is a piecewise polynomial, not correctly rounded",
    T.FmaOp: "NKI rounds the product to f32 before the add (the config asks for one rounding)",
}
"""The rounded ops whose NKI lowering is not one correctly rounded f32 operation: why."""


def rounding_refusal(op: TileOp) -> str | None:
    """Why the Trainium lowering cannot honour ``op``'s ``rounding_mode`` config; None when it
    has none or the config is ``rn`` on one of `NEAREST_EVEN_OPS`."""
    rounds = getattr(op, "rounds", None)
    if rounds is None or not rounds():
        return None
    mode = op.rounding_mode()
    if mode == "rn" and isinstance(op, NEAREST_EVEN_OPS):
        return None
    why = NOT_CORRECTLY_ROUNDED.get(type(op))
    if why is None:
        return (f"{op.name} config rounding_mode = \"{mode}\" cannot be honoured: NKI rounds to "
                f"nearest even only; drop the config or make it \"rn\"")
    return (f"{op.name} config rounding_mode = \"{mode}\" cannot be honoured: {why}; drop the "
            f"config to accept NKI's accuracy")


def _honours_rounding(op: TileOp, ctx) -> tuple[bool, str]:
    why = rounding_refusal(op)
    return why is None, why or ""


HONOURS_ROUNDING = predicate("rounding_mode", _honours_rounding)
"""Predicate of every variant of an op taking ``rounding_mode`` (`rounding_refusal`)."""
