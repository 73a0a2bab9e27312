"""Guarded Trainium kernels for the tests: a loop over the 128-row tiles of X and B whose last
tile is partial (``%rows = min(128, n - 128 i)``), every view guarded by ``%rows``."""

from __future__ import annotations

from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_lowering import kernel_text


def row_loop(rows: int, cols: int, tiles: int, body: str, limit: int | None = None) -> str:
    """A loop %i over ``tiles`` row tiles of 128 of X, B [rows, cols] -> Y, with %rows =
    min(128, limit - 128 i) (limit: ``rows``), the guarded HBM views %xg, %bg, %yg and the
    guarded SBUF views %a, %b, %c of 128-row tiles (%ta, %tb, %tc unguarded); ``body`` (its
    ``{s}`` the SBUF tile type, ``{T}`` the HBM tile type) computes %c and the loop stores
    it."""
    limit = rows if limit is None else limit
    X = buffer_type(f"{rows}x{cols}xf32")
    T = buffer_type(f"128x{cols}xf32")
    s = buffer_type(f"128x{cols}xf32", scope="trn.sbuf")
    text = f"""  %ta = tirx.alloc : {s}
  %tb = tirx.alloc : {s}
  %tc = tirx.alloc : {s}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {tiles} : index
  %c128 = arith.constant 128 : index
  %climit = arith.constant {limit} : index
  scf.for %i = %c0 to %cn step %c1 {{
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %climit, %row : index
    %rows = arith.minsi %c128, %left : index
    %xg = tirx.slice %X[%row, 0] [%rows, {cols}] : {X} -> {T}
    %bg = tirx.slice %B[%row, 0] [%rows, {cols}] : {X} -> {T}
    %yg = tirx.slice %Y[%row, 0] [%rows, {cols}] : {X} -> {T}
    %a = tirx.slice %ta[0, 0] [%rows, {cols}] : {s} -> {s}
    %b = tirx.slice %tb[0, 0] [%rows, {cols}] : {s} -> {s}
    %c = tirx.slice %tc[0, 0] [%rows, {cols}] : {s} -> {s}
    tirx.copy %a, %xg : {s}, {T}
    tirx.copy %b, %bg : {s}, {T}
{body.format(s=s, T=T)}
    tirx.copy %yg, %c : {T}, {s}
  }}"""
    return kernel_text(text, {"X": X, "B": X}, {"Y": X})
