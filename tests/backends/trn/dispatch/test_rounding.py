"""TIRx's ``rounding_mode`` config on trn (tirx_mlir/backends/trn/dispatch/rounding.py): NKI rounds
to nearest even only, so a mode it cannot honour is a dispatch failure located at the op, per op
kind; ``rn`` where one NKI instruction computes exactly that lowers as without the config."""

from __future__ import annotations

import pytest
from tirx_testing.trn_lowering import kernel_text, lower

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.diagnostics import PassError, format_location
from tirx_mlir.located_parser import parse_module

S = "!tirx.buffer<128x512xf32, trn.sbuf>"
H = "!tirx.buffer<128x512xbf16, trn.sbuf>"
COL = "!tirx.buffer<128x1xf32, trn.sbuf>"
G = "!tirx.buffer<128x512xf32, global>"

OPS = {
    "cast": f"  tirx.cast %h, %x{{config}} : {H}, {S}",
    "add": f"  tirx.add %y, %x, %x{{config}} : {S}, {S}, {S}",
    "sub": f"  tirx.sub %y, %x, %c{{config}} : {S}, {S}, {COL}",
    "mul": f"  tirx.mul %y, %x, %x{{config}} : {S}, {S}, {S}",
    "fdiv": f"  tirx.fdiv %y, %x, %x{{config}} : {S}, {S}, {S}",
    "reciprocal": f"  tirx.reciprocal %y, %x{{config}} : {S}, {S}",
    "sqrt": f"  tirx.sqrt %y, %x{{config}} : {S}, {S}",
    "fma": f"  tirx.fma %y, %x, %x, %x{{config}} : {S}, {S}, {S}, {S}",
}
"""One op of each kind taking ``rounding_mode``, on SBUF tiles %x -> %y (%h: bf16, %c: a column)."""

PROLOGUE = (f"  %x = tirx.alloc : {S}\n  %y = tirx.alloc : {S}\n  %h = tirx.alloc : {H}\n"
            f"  %c = tirx.alloc : {COL}\n  tirx.copy %x, %A : {S}, {G}\n")
EPILOGUE = f"\n  tirx.copy %B, %y : {G}, {S}"


def _module(kind: str, mode: str | None):
    config = f' config {{rounding_mode = "{mode}"}}' if mode else ""
    body = PROLOGUE + OPS[kind].format(config=config) + EPILOGUE
    module = parse_module(kernel_text(body, {"A": G, "B": G}), "rounding.mlir")
    module.verify()
    return module


def _failure(kind: str, mode: str) -> str:
    """The error text, after the op's location (the op is the line after the prologue)."""
    with pytest.raises(PassError) as info:
        lower(_module(kind, mode))
    assert info.value.op.name == f"tirx.{kind}"
    return f"{format_location(info.value.op)}: {info.value}"


@pytest.mark.parametrize("kind", ["cast", "add", "sub", "mul"])
@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_directed_modes_are_refused_at_the_op(kind, mode):
    text = _failure(kind, mode)
    assert text.startswith("rounding.mlir:7:3: tile dispatch failed"), text
    assert f"tile dispatch failed: op=tirx.{kind} target=trn" in text
    assert f'tirx.{kind} config rounding_mode = "{mode}" cannot be honoured: NKI rounds to ' \
           f'nearest even only; drop the config or make it "rn"' in text
    assert "rejected: rounding_mode" in text


@pytest.mark.parametrize("kind, why", [
    ("fdiv", "NKI divides by a reciprocal then a multiply, rounding twice"),
    ("reciprocal", "not documented as correctly rounded"),
    ("sqrt", "piecewise polynomial"),
    ("fma", "rounds the product to f32 before the add"),
])
@pytest.mark.parametrize("mode", ["rn", "rz"])
def test_ops_not_correctly_rounded_refuse_every_mode(kind, why, mode):
    text = _failure(kind, mode)
    assert text.startswith("rounding.mlir:7:3: tile dispatch failed"), text
    assert f'tirx.{kind} config rounding_mode = "{mode}" cannot be honoured' in text
    assert why in text and "drop the config to accept NKI's accuracy" in text


@pytest.mark.parametrize("kind", ["cast", "add", "sub", "mul"])
def test_nearest_even_is_what_nki_does(kind):
    """``rn`` lowers to the same NKI program as no config (one f32 instruction rounding to
    nearest even, as the interpreter's rounded arithmetic in rn)."""
    with_rn = emit_nki(lower(_module(kind, "rn")))
    assert with_rn == emit_nki(lower(_module(kind, None)))


@pytest.mark.parametrize("kind", ["fdiv", "reciprocal", "sqrt", "fma"])
def test_without_the_config_these_ops_lower(kind):
    assert "nki." in emit_nki(lower(_module(kind, None)))


def test_compose_op_with_a_refused_rounding_is_not_fused():
    """The fuse variant (a binary_chain) would drop the config: it declines, and the inlined op
    fails."""
    body = (PROLOGUE + "  tirx.compose_op {\n"
            f'    tirx.sub %y, %x, %c config {{rounding_mode = "rz"}} : {S}, {S}, {COL}\n'
            f"    tirx.mul %y, %y, %x : {S}, {S}, {S}\n  }}" + EPILOGUE)
    module = parse_module(kernel_text(body, {"A": G, "B": G}), "rounding.mlir")
    module.verify()
    with pytest.raises(PassError) as info:
        lower(module)
    text = str(info.value)
    assert "decomposes as tirx.compose_op (variant 'inline') into tirx.sub" in text
    assert 'tirx.sub config rounding_mode = "rz" cannot be honoured' in text
