"""A dispatch failure inside a decomposition (binary_chain -> mul, compose_op -> binary_chain
-> mul) is reported at the op the user wrote, names the decomposition path and shows the
inner op's variant table."""

from __future__ import annotations

import pytest

from tirx_testing.trn_lowering import dispatch_only, kernel_text
from tirx_mlir.diagnostics import PassError, op_location
from tirx_mlir.located_parser import parse_module

SQ = "!tirx.buffer<128x128xf32, trn.sbuf>"
SQT = "!tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>"
CHAIN = f"tirx.binary_chain %y, %t, %x, %k op0 mul op1 add : {SQ}, {SQT}, {SQ}, f32"


def _kernel(op_text: str) -> str:
    body = "\n".join([f"  %x = tirx.alloc : {SQ}", f"  %t = tirx.alloc : {SQT}",
                      f"  %y = tirx.alloc : {SQ}", "  %k = arith.constant 2.0 : f32",
                      f"  tirx.zero %x : {SQ}", f"  tirx.zero %t : {SQT}", op_text])
    return kernel_text(body, {})


def _failure(text: str) -> PassError:
    with pytest.raises(PassError) as info:
        dispatch_only(parse_module(text, "nested.mlir"))
    return info.value


def test_failure_inside_binary_chain_names_the_chain():
    err = _failure(_kernel(f"  {CHAIN}"))
    assert err.op.name == "tirx.binary_chain" and op_location(err.op)[1] == 8
    assert err.message.startswith(
        "tile dispatch failed: op=tirx.binary_chain: it decomposes as tirx.binary_chain "
        "(variant 'decompose') into tirx.mul, which cannot be dispatched:\n"
        "tile dispatch failed: op=tirx.mul target=trn\nVariant ")
    assert "binary (prio=0)   | declined — operand 'lhs' does not put dim 0 on partitions" in \
        err.message


def test_failure_two_levels_down_names_the_whole_path():
    err = _failure(_kernel(f"  tirx.compose_op {{\n    {CHAIN}\n  }}"))
    assert err.op.name == "tirx.compose_op" and op_location(err.op)[1] == 8
    assert "it decomposes as tirx.compose_op (variant 'inline') -> tirx.binary_chain (variant " \
           "'decompose') into tirx.mul" in err.message
    assert "tile dispatch failed: op=tirx.mul target=trn" in err.message


def test_a_top_level_failure_is_unchanged():
    err = _failure(_kernel(f"  tirx.mul %y, %t, %x : {SQ}, {SQT}, {SQ}"))
    assert err.op.name == "tirx.mul"
    assert err.message.startswith("tile dispatch failed: op=tirx.mul target=trn\n")
