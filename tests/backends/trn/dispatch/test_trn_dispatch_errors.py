"""What a user sees when a tile op cannot be lowered to Trainium: the dispatch failure table,
located at the op, one row per variant with the reason it gave."""

from __future__ import annotations

import pytest

from tirx_testing.trn_lowering import kernel_text, lower
from tirx_mlir.located_parser import parse_module
from tirx_mlir.diagnostics import PassError

S = "!tirx.buffer<128x512xf32, trn.sbuf>"
ROW = "!tirx.buffer<1x512xf32, trn.sbuf>"
COL = "!tirx.buffer<128x1xf32, trn.sbuf>"
G = "!tirx.buffer<128x512xf32, global>"


def failure(body: str, params: dict | None = None) -> str:
    module = parse_module(kernel_text(body, params or {}), "bad.mlir")
    module.verify()
    with pytest.raises(PassError) as info:
        lower(module)
    text = str(info.value)
    return text


def test_reduction_across_partitions():
    text = failure(f"  %x = tirx.alloc : {S}\n  %r = tirx.alloc : {ROW}\n"
                   f"  tirx.sum %r, %x axes [0] : {ROW}, {S}")
    assert "tile dispatch failed: op=tirx.sum target=trn" in text
    assert "reduction (prio=0)" in text
    assert "Trainium reduces free dims only" in text


def test_partition_broadcast_of_a_psum_row():
    """A row on chip is broadcast by TensorE, which reads SBUF (tests/backends/trn/dispatch/
    test_partition_broadcast.py has the rows that work)."""
    row = "!tirx.buffer<1x512xf32, trn.psum>"
    text = failure(f"  %x = tirx.alloc : {S}\n  %r = tirx.alloc : {row}\n"
                   f"  tirx.add %x, %x, %r : {S}, {S}, {row}")
    assert "the row is in trn.psum; a broadcast reads trn.sbuf" in text


def test_gemm_operand_in_psum_is_rejected_by_every_variant():
    text = failure(f"  %a = tirx.alloc : !tirx.buffer<128x128xf32, trn.psum>\n"
                   f"  %b = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>\n"
                   f"  %c = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>\n"
                   f"  tirx.gemm %c, %a, %b : !tirx.buffer<128x128xf32, trn.sbuf>, "
                   f"!tirx.buffer<128x128xf32, trn.psum>, !tirx.buffer<128x128xf32, trn.sbuf>")
    assert "default (prio=10)" in text and "transpose_operands (prio=0)" in text
    assert text.count("TensorE reads its operands from trn.sbuf") == 2


def test_gemm_mixed_precision_operands():
    text = failure("  %a = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>\n"
                   "  %b = tirx.alloc : !tirx.buffer<128x128xbf16, trn.sbuf>\n"
                   "  %c = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>\n"
                   "  tirx.gemm %c, %a, %b transpose_a : !tirx.buffer<128x128xf32, trn.sbuf>, "
                   "!tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xbf16, trn.sbuf>")
    assert "an f32 matmul operand needs an f32 partner" in text


def test_select_needs_a_constant_side():
    text = failure(f"  %x = tirx.alloc : {S}\n  %y = tirx.alloc : {S}\n"
                   f"  tirx.select %x, %x, %y where (d0, d1) : (d0 - d1 >= 0) : {S}, {S}, {S}")
    assert "a full tile on one side and a constant on the other" in text


def test_exec_scope_is_thread_only():
    text = failure(f"  %x = tirx.alloc : {S}\n  tirx.add cta %x, %x, %x : {S}, {S}, {S}")
    assert "rejected: exec_scope" in text and "exec scope cta is not thread" in text


def test_copy_between_hbm_buffers():
    text = failure(f"  tirx.copy %B, %A : {G}, {G}", {"A": G, "B": G})
    assert "both endpoints are in HBM" in text


def test_forced_variant_keeps_its_reason():
    text = failure(f"  %x = tirx.alloc : {S}\n  %y = tirx.alloc : {S}\n"
                   f"  tirx.copy %y, %x dispatch \"transpose\" : {S}, {S}")
    assert "transpose (prio=5)" in text
    assert "default (prio=10)" not in text
    assert "both endpoints hold the same dim on partitions" in text


def test_every_variant_declines_with_its_reason():
    text = failure(f"  %x = tirx.alloc : {S}\n  %v = tirx.alloc : {COL}\n  %one = arith.constant 1.0 : f32\n"
                   f"  tirx.unary_reduce %x, %v, %x bias %one unary silu reduce sum : {S}, {COL}, {S}, f32")
    assert "activation_reduce (prio=10)" in text and "silu takes no bias" in text
    assert "decompose (prio=0)" in text


def test_error_is_located_at_the_op():
    module = parse_module(kernel_text(f"  %x = tirx.alloc : {S}\n  %r = tirx.alloc : {ROW}\n"
                                      f"  tirx.sum %r, %x axes [0] : {ROW}, {S}", {}), "bad.mlir")
    with pytest.raises(PassError) as info:
        lower(module)
    assert info.value.op is not None and info.value.op.name == "tirx.sum"
