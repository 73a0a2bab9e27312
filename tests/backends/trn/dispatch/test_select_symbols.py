"""tirx.select predicates over loop variables and scope ids (the integer set's symbols, bound by
``symbols [...]``): `dispatch/select.py` adds the symbols' part of each constraint to the
affine_select offset (``offset_index``). Each kernel is checked at every stage (numpy == tile
level == after every pass == shared SBUF/PSUM == printed NKI of both APIs on the stand-in)."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_lowering import kernel_text, random_inputs, run, assert_close
from tirx_testing.trn_stages import check_every_stage, executed_nki_ops

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

NEG = np.float32(-3.0e38)


def row_tiles_kernel(rows: int, cols: int, select: str, tiles: int) -> str:
    """Y = select(X) tile by tile: a loop %i over ``tiles`` 128-row tiles of X [rows, cols],
    each loaded into %s, selected into %m by ``select`` and stored."""
    X = buffer_type(f"{rows}x{cols}xf32")
    T = buffer_type(f"128x{cols}xf32")
    s = buffer_type(f"128x{cols}xf32", scope="trn.sbuf")
    body = f"""  %s = tirx.alloc : {s}
  %m = tirx.alloc : {s}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {tiles} : index
  %c128 = arith.constant 128 : index
  %neg = arith.constant -3.0e38 : f32
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %cn step %c1 {{
    %row = arith.muli %i, %c128 : index
    %src = tirx.slice %X[%row, 0] [128, {cols}] : {X} -> {T}
    %dst = tirx.slice %Y[%row, 0] [128, {cols}] : {X} -> {T}
    tirx.copy %s, %src : {s}, {T}
    {select.format(s=s)}
    tirx.copy %dst, %m : {T}, {s}
  }}"""
    return kernel_text(body, {"X": X}, {"Y": X})


def absolute_rows(rows: int, cols: int):
    return np.ogrid[0:rows, 0:cols]


def test_ragged_last_tile_by_the_loop_variable():
    """``i * 128 + d0 < 300``: the rows of the last tile past the tensor's 300 are masked."""
    select = ("tirx.select %m, %s, %neg where (d0, d1)[s0] : (299 - s0 * 128 - d0 >= 0) "
              "symbols [%i] : {s}, {s}, f32, index")
    q, _ = absolute_rows(384, 64)
    final = check_every_stage(row_tiles_kernel(384, 64, select, 3),
                              lambda x: [np.where(q < 300, x, NEG)])
    assert executed_nki_ops(final)["nki.affine_select"] == 3  # one per tile, in the loop
    assert [op.offset_index is not None for op in final.walk()
            if op.name == "nki.affine_select"] == [True]


def test_banded_causal_mask_over_loop_tiles_and_column_chunks():
    """Two constraints over the absolute query row ``q = i * 128 + d0`` and key ``k = d1``:
    ``k <= q`` and ``k > q - 200``, on 1024 columns (two instructions of 512 per tile)."""
    select = ("tirx.select %m, %s, %neg where (d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0, "
              "d1 - s0 * 128 - d0 + 199 >= 0) symbols [%i] : {s}, {s}, f32, index")
    q, k = absolute_rows(256, 1024)
    final = check_every_stage(row_tiles_kernel(256, 1024, select, 2),
                              lambda x: [np.where((k <= q) & (k > q - 200), x, NEG)])
    assert executed_nki_ops(final)["nki.affine_select"] == 2 * 2 * 2  # tiles, chunks, constraints


def test_constant_true_value_negates_the_symbols_part():
    """``m = q >= 200 ? 1.0 : x``: the constant is the true value, so the predicate is negated,
    its symbols' part with it."""
    select = ("tirx.select %m, %one, %s where (d0, d1)[s0] : (s0 * 128 + d0 - 200 >= 0) "
              "symbols [%i] : {s}, f32, {s}, index")
    q, _ = absolute_rows(384, 64)
    check_every_stage(row_tiles_kernel(384, 64, select, 3),
                      lambda x: [np.where(q >= 200, np.float32(1.0), x)])


def test_two_constants_with_a_symbol():
    """Both values constant: memset, then select in place, the offset carrying the symbol."""
    select = ("tirx.select %m, %one, %neg where (d0, d1)[s0] : (d1 + s0 * 16 - d0 >= 0) "
              "symbols [%i] : {s}, f32, f32, index")
    q, k = absolute_rows(256, 64)
    check_every_stage(row_tiles_kernel(256, 64, select, 2),
                      lambda x: [np.where(k + 16 * (q // 128) - q % 128 >= 0, np.float32(1.0),
                                          NEG) + 0 * x])


@pytest.mark.parametrize("api", ["current", "legacy"])
def test_scope_id_symbol(api):
    """A CTA id as the symbol: each CTA masks its own row tile at ``cta * 128 + d0 < 200``. The
    stand-in runs program 0 only, so the interpreter checks every stage of both CTAs and the
    printed offset reads ``nl.program_id(0)``."""
    X, T = buffer_type("256x64xf32"), buffer_type("128x64xf32")
    s = buffer_type("128x64xf32", scope="trn.sbuf")
    body = f"""  %s = tirx.alloc : {s}
  %neg = arith.constant -3.0e38 : f32
  %b = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %b, %c128 : index
  %src = tirx.slice %X[%row, 0] [128, 64] : {X} -> {T}
  %dst = tirx.slice %Y[%row, 0] [128, 64] : {X} -> {T}
  tirx.copy %s, %src : {s}, {T}
  tirx.select %s, %s, %neg where (d0, d1)[s0] : (199 - s0 * 128 - d0 >= 0) symbols [%b] : {s}, {s}, f32, index
  tirx.copy %dst, %s : {T}, {s}"""
    text = kernel_text(body, {"X": X}, {"Y": X}).replace("grid [1]", "grid [2]")
    module = parse_module(text, "scope_id")
    inputs = random_inputs(module)
    q, _ = absolute_rows(256, 64)
    expected = np.where(q < 200, inputs[0], NEG)
    assert_close(run(module, inputs)[0], expected, 0, 0, "tile level")
    shots = get_pipeline("trn").snapshots(module)
    for stage, snapshot in shots:
        assert_close(run(snapshot, inputs)[0], expected, 0, 0, f"after {stage}")
    printed = emit_nki(shots[-1][1], api)
    assert "nl.program_id(0)" in printed.split("affine_select", 1)[1].split("\n", 1)[0]
