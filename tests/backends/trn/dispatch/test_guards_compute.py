"""Guards through the Trainium compute variants beyond copy/binary/reduction: silu, fma (both
forms), fills, select (predicates over the loop variable, two constants), binary_chain (fused
and decomposed), compose_op (fused and inlined), the decomposed unary (a full-tile bias) and the
decomposed fused reductions. Each kernel is a loop over 1000 rows in 128-row tiles (the last of
104 rows) checked at every stage (numpy == tile level == after every pass == shared SBUF/PSUM ==
printed NKI of both APIs on the stand-in), and each keeps one guarded instruction per tile."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_guards import row_loop
from tirx_testing.trn_stages import check_every_stage, executed_nki_ops

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.diagnostics import PassError
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

V = buffer_type("128x1xf32", scope="trn.sbuf")
VECTOR = f"""    %tv = tirx.alloc : {V}
    %v = tirx.slice %tv[0, 0] [%rows, 1] : {V} -> {V}
"""
R = buffer_type("1x64xf32", scope="trn.sbuf")
ROW = f"""    %r = tirx.alloc : {R}
    %x0 = tirx.slice %ta[0, 0] [1, 64] : {buffer_type("128x64xf32", scope="trn.sbuf")} -> {R}
    tirx.copy %r, %x0 : {R}, {R}
"""
"""Row 0 of the row tile (the tile's first row: every tile has one) on chip, as [1, 64]."""


def _f64(x):
    return x.astype(np.float64)


def _silu(x):
    return x / (1.0 + np.exp(-x))


def _first_rows(n=1000):
    """Each row's tile's first row."""
    return np.arange(n) // 128 * 128


def _rows_mask(n=1000, cols=64):
    """[n, cols] bools: row r >= column c, r counted over the whole matrix."""
    return np.arange(n)[:, None] >= np.arange(cols)[None, :]


CASES = {
    # name: (body computing %c from %a = X tile, %b = B tile; numpy of (x, b); instructions)
    "silu": ("    tirx.silu %c, %a : {s}, {s}", lambda x, b: _silu(_f64(x)),
             {"nki.activation": 8}),
    "fma_scalar": ("""    %two = arith.constant 2.0 : f32
    tirx.fma %c, %a, %two, %b : {s}, {s}, f32, {s}""", lambda x, b: 2.0 * x + _f64(b),
                   {"nki.scalar_tensor_tensor": 8}),
    "fma_full_scale": ("""    %half = arith.constant 0.5 : f32
    tirx.fma %c, %a, %b, %half : {s}, {s}, {s}, f32""", lambda x, b: _f64(x) * b + 0.5,
                       {"nki.tensor_tensor": 8, "nki.tensor_scalar": 8}),
    "fill": ("""    %three = arith.constant 3.0 : f32
    tirx.fill %c, %three : {s}, f32
    tirx.add %c, %c, %a : {s}, {s}, {s}""", lambda x, b: _f64(x) + 3.0,
             {"nki.memset": 8, "nki.tensor_tensor": 8}),
    "select_loop_var": ("""    %neg = arith.constant -1.0e30 : f32
    tirx.select %c, %a, %neg where (d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0) symbols [%i] : {s}, {s}, f32, index""",
                        lambda x, b: np.where(_rows_mask(), x, -1.0e30),
                        {"nki.affine_select": 8}),
    "select_two_constants": ("""    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    tirx.select %c, %one, %zero where (d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0) symbols [%i] : {s}, f32, f32, index""",
                             lambda x, b: _rows_mask().astype(np.float64),
                             {"nki.memset": 8, "nki.affine_select": 8}),
    "binary_chain": (VECTOR + """    tirx.sum %v, %a : {V}, {s}
    tirx.binary_chain %c, %a, %v, %b op0 sub op1 mul : {s}, {s}, {V}, {s}""",
                     lambda x, b: (x - _f64(x).sum(1, keepdims=True)) * b,
                     {"nki.scalar_tensor_tensor": 8}),
    "binary_chain_decompose": ("""    tirx.binary_chain %c, %a, %b, %b op0 mul op1 add : {s}, {s}, {s}, {s}""",
                               lambda x, b: _f64(x) * b + b, {"nki.tensor_tensor": 16}),
    "compose_fuse": (VECTOR + """    tirx.compose_op {{
      tirx.exp %c, %a : {s}, {s}
      tirx.sum %v, %c : {V}, {s}
    }}
    tirx.mul %c, %c, %v : {s}, {s}, {V}""",
                     lambda x, b: np.exp(_f64(x)) * np.exp(_f64(x)).sum(1, keepdims=True),
                     {"nki.activation_reduce": 8}),
    "compose_inline": ("""    tirx.compose_op {{
      tirx.exp %c, %a : {s}, {s}
      tirx.add %c, %c, %b : {s}, {s}, {s}
    }}""", lambda x, b: np.exp(_f64(x)) + b, {"nki.activation": 8}),
    "unary_decompose": ("    tirx.exp %c, %a bias %b : {s}, {s}, {s}",
                        lambda x, b: np.exp(_f64(x) + b), {"nki.activation": 8}),
    "unary_reduce_decompose": (VECTOR + """    tirx.unary_reduce %c, %v, %a unary exp reduce max : {s}, {V}, {s}
    tirx.sub %c, %c, %v : {s}, {s}, {V}""",
                               lambda x, b: np.exp(_f64(x)) - np.exp(_f64(x)).max(1, keepdims=True),
                               {"nki.activation": 8, "nki.tensor_reduce": 8}),
    "binary_reduce_decompose": (VECTOR + """    tirx.binary_reduce %c, %v, %a, %b binary mul reduce max : {s}, {V}, {s}, {s}
    tirx.add %c, %c, %v : {s}, {s}, {V}""",
                                lambda x, b: _f64(x) * b + (_f64(x) * b).max(1, keepdims=True),
                                {"nki.tensor_reduce": 8}),
    "partition_broadcast_copy": (ROW + """    tirx.copy %c, %r : {s}, {R}""",
                                 lambda x, b: _f64(x)[_first_rows()],
                                 {"nki.matmul": 8}),
    "partition_broadcast_add": (ROW + """    tirx.add %c, %a, %r : {s}, {s}, {R}""",
                                lambda x, b: _f64(x) + x[_first_rows()], {"nki.matmul": 8}),
}


@pytest.mark.parametrize("name", CASES)
def test_a_guarded_row_loop_at_every_stage(name):
    body, reference, counts = CASES[name]
    text = row_loop(1000, 64, 8, body.replace("{V}", V).replace("{R}", R))
    final = check_every_stage(text, lambda x, b: [reference(x, b)], rtol=2e-5, atol=1e-4,
                              where=name)
    executed = executed_nki_ops(final)
    for instruction, n in counts.items():
        assert executed[instruction] == n, (instruction, executed)
    current, legacy = emit_nki(final, "current"), emit_nki(final, "legacy")
    assert "nl.ds(0, min(128, (1000 - (i * 128))))" in current
    assert re.search(r"mask=\(i0(_\d+)? < -128 \* i \+ 1000\)", legacy)


def test_a_guarded_fill_prints_a_masked_legacy_memset():
    body, _, _ = CASES["fill"]
    final = get_pipeline("trn").apply(parse_module(row_loop(1000, 64, 8, body)))
    legacy = emit_nki(final, "legacy")
    assert "= nisa.memset(shape=(128, 64,), value=3.0, dtype=np.float32, " \
           "mask=(i0 < -128 * i + 1000))" in legacy


def test_select_on_a_guarded_free_dim_is_declined_with_its_reason():
    X = buffer_type("128x1000xf32")
    T = buffer_type("128x512xf32")
    s = buffer_type("128x512xf32", scope="trn.sbuf")
    from tirx_testing.trn_lowering import kernel_text
    body = f"""  %t = tirx.alloc : {s}
  %neg = arith.constant -1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c512 = arith.constant 512 : index
  %c1000 = arith.constant 1000 : index
  scf.for %j = %c0 to %c2 step %c1 {{
    %col = arith.muli %j, %c512 : index
    %left = arith.subi %c1000, %col : index
    %cols = arith.minsi %c512, %left : index
    %xg = tirx.slice %X[0, %col] [128, %cols] : {X} -> {T}
    %yg = tirx.slice %Y[0, %col] [128, %cols] : {X} -> {T}
    %tg = tirx.slice %t[0, 0] [128, %cols] : {s} -> {s}
    tirx.copy %tg, %xg : {s}, {T}
    tirx.select %tg, %tg, %neg where (d0, d1) : (d0 - d1 >= 0) : {s}, {s}, f32
    tirx.copy %yg, %tg : {T}, {s}
  }}"""
    with pytest.raises(PassError) as info:
        get_pipeline("trn").apply(parse_module(kernel_text(body, {"X": X}, {"Y": X})))
    assert "a guarded free dim: affine_select's pattern counts its free elements by " \
           "constants" in info.value.message
