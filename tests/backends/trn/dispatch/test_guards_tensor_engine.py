"""Guards through TensorE: gemm with a guarded M (rows of the result: the transposed-operand
path, examples/trn/guarded_matmul.mlir), a guarded N (columns of the moving operand and the
result) and a guarded K (the partition dim of both operands: the partial last K tile of a loop
accumulating into PSUM), and the transposing copy guarded on either endpoint's partitions. Each
kernel is checked at every stage and on both printers' NKI on the stand-in, with one guarded
instruction per tile."""

from __future__ import annotations

import numpy as np
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_lowering import kernel_text
from tirx_testing.trn_stages import check_every_stage, executed_nki_ops

from tirx_mlir.backends.trn.printers import emit_nki

LOOP = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %c300 = arith.constant 300 : index
  %c1000 = arith.constant 1000 : index
"""


def _f64(x):
    return x.astype(np.float64)


def test_a_guarded_n_gemm():
    """Y [128, 1000] = X^T.T @ W over 2 column tiles of at most 512 (the second of 488)."""
    XT, W, T = (buffer_type(s) for s in ("128x128xf32", "128x1000xf32", "128x512xf32"))
    s = lambda shape: buffer_type(shape, scope="trn.sbuf")  # noqa: E731
    body = LOOP + f"""  %xt = tirx.alloc : {s("128x128xf32")}
  %w = tirx.alloc : {s("128x512xf32")}
  %y = tirx.alloc : {s("128x512xf32")}
  tirx.copy %xt, %XT : {s("128x128xf32")}, {XT}
  scf.for %j = %c0 to %c2 step %c1 {{
    %col = arith.muli %j, %c512 : index
    %left = arith.subi %c1000, %col : index
    %cols = arith.minsi %c512, %left : index
    %wg = tirx.slice %W[0, %col] [128, %cols] : {W} -> {T}
    %yg = tirx.slice %Y[0, %col] [128, %cols] : {W} -> {T}
    %ws = tirx.slice %w[0, 0] [128, %cols] : {s("128x512xf32")} -> {s("128x512xf32")}
    %ys = tirx.slice %y[0, 0] [128, %cols] : {s("128x512xf32")} -> {s("128x512xf32")}
    tirx.copy %ws, %wg : {s("128x512xf32")}, {T}
    tirx.gemm %ys, %xt, %ws transpose_a : {s("128x512xf32")}, {s("128x128xf32")}, {s("128x512xf32")}
    tirx.copy %yg, %ys : {T}, {s("128x512xf32")}
  }}"""
    text = kernel_text(body, {"XT": XT, "W": W}, {"Y": W})
    final = check_every_stage(text, lambda xt, w: [_f64(xt).T @ w], rtol=1e-5, atol=1e-4)
    assert executed_nki_ops(final)["nki.matmul"] == 2
    assert "moving=w[:, nl.ds(0, min(512, (1000 - (j * 512))))]" in emit_nki(final, "current")


def test_a_guarded_k_loop_accumulates_in_psum():
    """Y [128, 512] = A @ W with K = 300 in tiles of 128: the first K tile overwrites the PSUM
    result (beta 0), the loop over the other two (the last of 44 rows) accumulates (beta 1),
    the contraction guarded on the partitions of both operands."""
    AT, W = buffer_type("300x128xf32"), buffer_type("300x512xf32")
    KA, KW = buffer_type("128x128xf32"), buffer_type("128x512xf32")
    sa, sw = buffer_type("128x128xf32", scope="trn.sbuf"), buffer_type("128x512xf32", scope="trn.sbuf")
    p = buffer_type("128x512xf32", scope="trn.psum")
    body = LOOP + f"""  %a = tirx.alloc : {sa}
  %w = tirx.alloc : {sw}
  %acc = tirx.alloc : {p}
  %y = tirx.alloc : {sw}
  %a0 = tirx.slice %AT[0, 0] [128, 128] : {AT} -> {KA}
  %w0 = tirx.slice %W[0, 0] [128, 512] : {W} -> {KW}
  tirx.copy %a, %a0 : {sa}, {KA}
  tirx.copy %w, %w0 : {sw}, {KW}
  tirx.gemm %acc, %a, %w transpose_a : {p}, {sa}, {sw}
  scf.for %k = %c1 to %c3 step %c1 {{
    %row = arith.muli %k, %c128 : index
    %left = arith.subi %c300, %row : index
    %rows = arith.minsi %c128, %left : index
    %ag = tirx.slice %AT[%row, 0] [%rows, 128] : {AT} -> {KA}
    %wg = tirx.slice %W[%row, 0] [%rows, 512] : {W} -> {KW}
    %as = tirx.slice %a[0, 0] [%rows, 128] : {sa} -> {sa}
    %ws = tirx.slice %w[0, 0] [%rows, 512] : {sw} -> {sw}
    tirx.copy %as, %ag : {sa}, {KA}
    tirx.copy %ws, %wg : {sw}, {KW}
    tirx.gemm %acc, %as, %ws transpose_a beta 1.0 : {p}, {sa}, {sw}
  }}
  tirx.copy %y, %acc : {sw}, {p}
  tirx.copy %Y, %y : {buffer_type("128x512xf32")}, {sw}"""
    text = kernel_text(body, {"AT": AT, "W": W}, {"Y": buffer_type("128x512xf32")})
    final = check_every_stage(text, lambda at, w: [_f64(at).T @ w], rtol=1e-5, atol=1e-4)
    assert executed_nki_ops(final)["nki.matmul"] == 3
    current, legacy = emit_nki(final, "current"), emit_nki(final, "legacy")
    assert "stationary=a[nl.ds(0, min(128, (300 - (k_1 * 128)))), :], " \
           "moving=w[nl.ds(0, min(128, (300 - (k_1 * 128)))), :], accumulate=True" in current
    assert "+= nisa.nc_matmul(a[i0, i1], w[i0, i1_1], mask=(i0 < -128 * k_1 + 300))" in legacy


def test_a_transposing_copy_guarded_on_the_destination_partitions():
    """X [128, 200] transposed column tile by column tile (2 of at most 128, the second of 72):
    the source's guarded free dim is the destination's guarded partition dim."""
    X, Y = buffer_type("128x200xf32"), buffer_type("200x128xf32")
    XT, YT = buffer_type("128x128xf32"), buffer_type("128x128xf32")
    s = buffer_type("128x128xf32", scope="trn.sbuf")
    body = LOOP + f"""  %x = tirx.alloc : {s}
  %t = tirx.alloc : {s}
  %c200 = arith.constant 200 : index
  scf.for %j = %c0 to %c2 step %c1 {{
    %col = arith.muli %j, %c128 : index
    %left = arith.subi %c200, %col : index
    %cols = arith.minsi %c128, %left : index
    %xg = tirx.slice %X[0, %col] [128, %cols] : {X} -> {XT}
    %yg = tirx.slice %Y[%col, 0] [%cols, 128] : {Y} -> {YT}
    %xs = tirx.slice %x[0, 0] [128, %cols] : {s} -> {s}
    %ts = tirx.slice %t[0, 0] [%cols, 128] : {s} -> {s}
    tirx.copy %xs, %xg : {s}, {XT}
    %xst = tirx.transpose %xs [1, 0] : {s} -> {s}
    tirx.copy %ts, %xst : {s}, {s}
    tirx.copy %yg, %ts : {YT}, {s}
  }}"""
    text = kernel_text(body, {"X": X}, {"Y": Y})
    final = check_every_stage(text, lambda x: [x.T.copy()])
    assert executed_nki_ops(final)["nki.matmul"] == 2
