"""Ragged shapes (`dispatch/ragged.py`, `layouts.default_layout`): dims that do not split into
equal instruction tiles. Every kernel is checked at every stage (numpy == tile level == after
every pass == shared SBUF/PSUM == printed NKI of both APIs on the stand-in), and runs the
instructions a hand-written NKI kernel would: one per 128-row tile, the last one smaller, and
per free chunk of at most ``max_inst_size`` columns, the last one smaller."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_lowering import kernel_text
from tirx_testing.trn_stages import check_every_stage, executed_nki_ops

F32 = np.float32
REDUCE = dict(rtol=1e-5, atol=1e-4)


def tiles(n: int, size: int) -> int:
    return -(-n // size)


def sbuf(shape: str) -> str:
    return buffer_type(shape, scope="trn.sbuf")


def unary_kernel(rows: int, cols: int, body: str, *, extra: str = "") -> str:
    """Y = body(X) for an X of [rows, cols] f32 held in one SBUF buffer %x."""
    X, x = buffer_type(f"{rows}x{cols}xf32"), sbuf(f"{rows}x{cols}xf32")
    text = f"""  %x = tirx.alloc : {x}
{extra}  tirx.copy %x, %X : {x}, {X}
{body.format(x=x)}
  tirx.copy %Y, %x : {X}, {x}"""
    return kernel_text(text, {"X": X}, {"Y": X})


@pytest.mark.parametrize("rows, cols", [(257, 64), (300, 600), (130, 1009), (5, 1031)])
def test_elementwise_on_ragged_rows_and_columns(rows, cols):
    body = """  %two = arith.constant 2.0 : f32
  tirx.mul %x, %x, %two : {x}, {x}, f32
  tirx.exp %x, %x : {x}, {x}"""
    final = check_every_stage(unary_kernel(rows, cols, body),
                              lambda x: [np.exp(2.0 * x.astype(np.float64))],
                              rtol=2e-6, atol=1e-6)
    ops = executed_nki_ops(final)
    per_op = tiles(rows, 128) * tiles(cols, 512)  # what a hand-written kernel issues
    assert 0 < ops["nki.tensor_scalar"] <= per_op and 0 < ops["nki.activation"] <= per_op
    assert ops["nki.load"] == ops["nki.store"] == (1 if rows <= 128 else
                                                   1 + (rows % 128 != 0))


def test_every_row_tile_but_the_last_is_full():
    final = check_every_stage(unary_kernel(257, 512, "  tirx.exp %x, %x : {x}, {x}"),
                              lambda x: [np.exp(x.astype(np.float64))], rtol=2e-6)
    shapes = [op.operands[0].type.get_shape() for op in final.walk()
              if op.name == "nki.activation"]
    assert sorted(s[0] for s in shapes) == [1, 128]  # a loop over 2 full tiles, then 1 row
    assert executed_nki_ops(final)["nki.activation"] == 3


def softmax_kernel(rows: int, cols: int) -> str:
    X, x, col = (buffer_type(f"{rows}x{cols}xf32"), sbuf(f"{rows}x{cols}xf32"),
                 sbuf(f"{rows}x1xf32"))
    body = f"""  %x = tirx.alloc : {x}
  %m = tirx.alloc : {col}
  %s = tirx.alloc : {col}
  tirx.copy %x, %X : {x}, {X}
  tirx.reduce_negate %m, %x reduce max : {col}, {x}
  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : {x}, {col}, {x}, {col}
  tirx.reciprocal %s, %s : {col}, {col}
  tirx.mul %x, %x, %s : {x}, {x}, {col}
  tirx.copy %Y, %x : {X}, {x}"""
    return kernel_text(body, {"X": X}, {"Y": X})


def _softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rows, cols", [(257, 300), (300, 1009)])
def test_softmax_with_ragged_rows(rows, cols):
    final = check_every_stage(softmax_kernel(rows, cols), lambda x: [_softmax(x)], **REDUCE)
    ops = executed_nki_ops(final)
    assert 0 < ops["nki.tensor_reduce"] <= tiles(rows, 128)
    assert 0 < ops["nki.activation_reduce"] <= tiles(rows, 128)


@pytest.mark.parametrize("op, fn", [("sum", np.sum), ("max", np.max), ("min", np.min)])
def test_reductions_of_ragged_rows(op, fn):
    X, x, col = buffer_type("300x96xf32"), sbuf("300x96xf32"), sbuf("300x1xf32")
    C = buffer_type("300x1xf32")
    body = f"""  %x = tirx.alloc : {x}
  %r = tirx.alloc : {col}
  tirx.copy %x, %X : {x}, {X}
  tirx.{op} %r, %x : {col}, {x}
  tirx.copy %R, %r : {C}, {col}"""
    final = check_every_stage(kernel_text(body, {"X": X}, {"R": C}),
                              lambda x: [fn(x.astype(np.float64), axis=1, keepdims=True)],
                              **REDUCE)
    assert 0 < executed_nki_ops(final)["nki.tensor_reduce"] <= 3


def test_binary_reduce_and_binary_chain_on_ragged_rows():
    X, x, col = buffer_type("200x64xf32"), sbuf("200x64xf32"), sbuf("200x1xf32")
    C = buffer_type("200x1xf32")
    body = f"""  %x = tirx.alloc : {x}
  %q = tirx.alloc : {x}
  %r = tirx.alloc : {col}
  %half = arith.constant 0.5 : f32
  tirx.copy %x, %X : {x}, {X}
  tirx.binary_reduce %q, %r, %x, %x binary mul reduce sum : {x}, {col}, {x}, {x}
  tirx.binary_chain %x, %x, %r, %half op0 mul op1 add : {x}, {x}, {col}, f32
  tirx.copy %Y, %x : {X}, {x}
  tirx.copy %R, %r : {C}, {col}"""

    def reference(x):
        x = x.astype(np.float64)
        ss = (x * x).sum(axis=1, keepdims=True)
        return [x * ss + 0.5, ss]

    check_every_stage(kernel_text(body, {"X": X}, {"Y": X, "R": C}), reference, **REDUCE)


def test_a_copy_of_a_ragged_slice_that_starts_inside_a_tile():
    """Rows [64, 192) of a [256, 32] buffer: one piece in each partition tile."""
    X, x = buffer_type("256x32xf32"), sbuf("256x32xf32")
    V, v = buffer_type("128x32xf32"), "!tirx.buffer<128x32xf32, trn.sbuf>"
    body = f"""  %x = tirx.alloc : {x}
  tirx.copy %x, %X : {x}, {X}
  %v = tirx.slice %x[64, 0] [128, 32] : {x} -> {v}
  tirx.copy %Y, %v : {V}, {v}"""
    final = check_every_stage(kernel_text(body, {"X": X}, {"Y": V}), lambda x: [x[64:192]])
    assert executed_nki_ops(final)["nki.store"] == 2


@pytest.mark.parametrize("m, n, k", [(300, 700, 200), (128, 1009, 257), (257, 64, 128)])
def test_gemm_with_ragged_m_n_and_k(m, n, k):
    """D = A^T^T @ B with A stored [K, M] (K on partitions): ragged M and N are cut like any
    dim; a ragged K accumulates the remainder into the first piece's result."""
    A, B, D = (buffer_type(f"{k}x{m}xf32"), buffer_type(f"{k}x{n}xf32"),
               buffer_type(f"{m}x{n}xf32"))
    a, b, d = sbuf(f"{k}x{m}xf32"), sbuf(f"{k}x{n}xf32"), sbuf(f"{m}x{n}xf32")
    body = f"""  %a = tirx.alloc : {a}
  %b = tirx.alloc : {b}
  %d = tirx.alloc : {d}
  tirx.copy %a, %A : {a}, {A}
  tirx.copy %b, %B : {b}, {B}
  tirx.gemm %d, %a, %b transpose_a : {d}, {a}, {b}
  tirx.copy %D, %d : {D}, {d}"""
    final = check_every_stage(kernel_text(body, {"A": A, "B": B}, {"D": D}),
                              lambda a, b: [a.astype(np.float64).T @ b.astype(np.float64)],
                              rtol=1e-5, atol=1e-4)
    assert executed_nki_ops(final)["nki.matmul"] == tiles(m, 128) * tiles(n, 512) * tiles(k, 128)


def test_fma_and_cast_on_ragged_rows():
    X, x = buffer_type("129x40xf32"), sbuf("129x40xf32")
    H, h = buffer_type("129x40xbf16"), sbuf("129x40xbf16")
    body = f"""  %x = tirx.alloc : {x}
  %h = tirx.alloc : {h}
  %s = arith.constant 3.0 : f32
  %c = arith.constant -1.0 : f32
  tirx.copy %x, %X : {x}, {X}
  tirx.fma %x, %x, %s, %c : {x}, {x}, f32, f32
  tirx.cast %h, %x : {h}, {x}
  tirx.copy %Y, %h : {H}, {h}"""
    import ml_dtypes

    check_every_stage(kernel_text(body, {"X": X}, {"Y": H}),
                      lambda x: [(x * F32(3) - F32(1)).astype(ml_dtypes.bfloat16)])


@pytest.mark.parametrize("pred, keep", [
    ("(d0 - d1 >= 0)", lambda i, j: i >= j),
    ("(d1 - d0 - 300 >= 0)", lambda i, j: j - i - 300 >= 0),
])
def test_select_on_ragged_rows_and_columns(pred, keep):
    """Each piece's predicate is the whole's shifted to the piece's indices: 3 row tiles (the
    last of 1 row) times 2 column pieces (512 and 497), one affine_select each."""
    body = f"""  %neg = arith.constant -1.0 : f32
  tirx.select %x, %x, %neg where (d0, d1) : {pred} : {{x}}, {{x}}, f32"""
    mask = keep(np.arange(257)[:, None], np.arange(1009)[None, :])
    final = check_every_stage(unary_kernel(257, 1009, body),
                              lambda x: [np.where(mask, x, F32(-1.0))])
    assert executed_nki_ops(final)["nki.affine_select"] == tiles(257, 128) * tiles(1009, 512)


def test_select_with_a_loop_variable_on_ragged_rows():
    """A predicate over the destination's rows and a loop variable (symbols), cut at row 256."""
    X, x = buffer_type("257x64xf32"), sbuf("257x64xf32")
    text = f"""  %x = tirx.alloc : {x}
  tirx.copy %x, %X : {x}, {X}
  %neg = arith.constant -1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {{
    tirx.select %x, %x, %neg where (d0, d1)[s0] : (255 + s0 - d0 >= 0) symbols [%i] : {x}, {x}, f32, index
  }}
  tirx.copy %Y, %x : {X}, {x}"""
    keep = np.arange(257)[:, None] <= 255  # after i = 0 (rows <= 255) and i = 1 (rows <= 256)
    final = check_every_stage(kernel_text(text, {"X": X}, {"Y": X}),
                              lambda x: [np.where(keep, x, F32(-1.0))])
    # per iteration: the two full tiles (side by side on the free axis) in one, the last row
    assert executed_nki_ops(final)["nki.affine_select"] == 2 * 2


def test_a_fused_compose_op_on_ragged_rows_and_columns():
    """compose_op {exp; sum} fuses into unary_reduce, which the ragged variant cuts: one
    activation_reduce per row tile (the reduced dim is never cut), then the scaling per row tile
    and column piece."""
    v = sbuf("257x1xf32")
    body = f"""  %y = tirx.alloc : {{x}}
  %m = tirx.alloc : {v}
  tirx.compose_op {{{{
    tirx.exp %y, %x : {{x}}, {{x}}
    tirx.sum %m, %y : {v}, {{x}}
  }}}}
  tirx.mul %x, %y, %m : {{x}}, {{x}}, {v}"""

    def reference(x):
        e = np.exp(x.astype(np.float64))
        return [e * e.sum(axis=1, keepdims=True)]

    final = check_every_stage(unary_kernel(257, 1009, body), reference, rtol=1e-5, atol=1e-3)
    ops = executed_nki_ops(final)
    assert ops["nki.activation_reduce"] == tiles(257, 128)
    assert ops["nki.tensor_scalar"] == tiles(257, 128) * tiles(1009, 512)


@pytest.mark.parametrize("rows, cols, cut", [(5, 1031, (1, 1024)), (130, 1009, (0, 128)),
                                             (128, 512, None), (128, 1024, None)])
def test_the_cut_and_its_space_with_and_without_partition_tiles(rows, cols, cut):
    """`find_cut` makes the op's iteration space only when a cut is possible (no operand with
    partition tiles: only the free-size rule can cut); the space it returns is the op's whole
    `iteration_space`, the cut the first of the module docstring's rules."""
    from tirx_mlir.backends.trn.dispatch.ragged import find_cut, iteration_space
    from tirx_mlir.backends.trn.transforms.default_layout import TrnDefaultLayoutPass
    from tirx_mlir.dialects.tirx import tile_ops as T
    from tirx_mlir.located_parser import make_context, parse_module

    body = """  %two = arith.constant 2.0 : f32
  tirx.mul %x, %x, %two : {x}, {x}, f32"""
    ctx = make_context()
    module = parse_module(unary_kernel(rows, cols, body), "ragged", ctx)
    TrnDefaultLayoutPass().apply(ctx, module)
    mul = next(op for op in module.walk() if isinstance(op, T.MulOp))
    found = find_cut(mul)
    if cut is None:
        assert found is None
        return
    assert found is not None and found[1:] == cut
    assert found[0] == iteration_space(mul)
