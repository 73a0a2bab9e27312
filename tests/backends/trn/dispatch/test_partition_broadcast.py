"""Broadcast across partitions (`dispatch/partition_broadcast.py`): a ``[1, N]`` row used with,
or copied into, a ``[P, N]`` tile. Each kernel is checked at every stage (numpy == tile level ==
after every pass == shared SBUF/PSUM == printed NKI of both APIs on the stand-in), and lowers to
the instructions a hand-written NKI kernel uses: one broadcasting DMA for a row in HBM, a
ones-vector matmul for a row on chip, done once for all partition tiles."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_lowering import kernel_text
from tirx_testing.trn_stages import check_every_stage, executed_nki_ops

from tirx_mlir.dialects.tirx import rules
from tirx_mlir.located_parser import parse_module


def sbuf(shape: str) -> str:
    return buffer_type(shape, scope="trn.sbuf")


def hbm(shape: str) -> str:
    return buffer_type(shape)


def copy_from_hbm_kernel(rows: int, n: int, dtype: str = "f32") -> str:
    X, R = hbm(f"1x{n}x{dtype}"), sbuf(f"{rows}x{n}x{dtype}")
    body = f"""  %r = tirx.alloc : {R}
  tirx.copy %r, %X : {R}, {X}
  tirx.copy %Y, %r : {hbm(f'{rows}x{n}x{dtype}')}, {R}"""
    return kernel_text(body, {"X": X}, {"Y": hbm(f"{rows}x{n}x{dtype}")})


@pytest.mark.parametrize("rows, n, dtype", [(128, 512, "f32"), (64, 300, "f32"),
                                            (256, 128, "bf16"), (128, 64, "i32")])
def test_copy_of_an_hbm_row_is_one_broadcasting_dma_per_partition_tile(rows, n, dtype):
    final = check_every_stage(copy_from_hbm_kernel(rows, n, dtype),
                              lambda x: [np.broadcast_to(x, (rows, n))])
    assert executed_nki_ops(final)["nki.load"] == -(-rows // 128)
    assert all(op.is_partition_broadcast() for op in final.walk() if op.name == "nki.load")


def on_chip_copy_kernel(rows: int, n: int, dtype: str) -> str:
    X, row, R = hbm(f"1x{n}x{dtype}"), sbuf(f"1x{n}x{dtype}"), sbuf(f"{rows}x{n}x{dtype}")
    body = f"""  %w = tirx.alloc : {row}
  %r = tirx.alloc : {R}
  tirx.copy %w, %X : {row}, {X}
  tirx.copy %r, %w : {R}, {row}
  tirx.copy %Y, %r : {hbm(f'{rows}x{n}x{dtype}')}, {R}"""
    return kernel_text(body, {"X": X}, {"Y": hbm(f"{rows}x{n}x{dtype}")})


def test_copy_of_an_on_chip_row_is_a_ones_matmul_on_tensor_engine():
    final = check_every_stage(on_chip_copy_kernel(128, 1024, "f32"),
                              lambda x: [np.broadcast_to(x, (128, 1024))])
    ops = executed_nki_ops(final)
    assert ops["nki.matmul"] == 2  # N = 1024 in two PSUM banks of 512
    assert ops["nki.load"] == 1 and ops["nki.memset"] == 1  # the row; the ones


def test_an_integer_row_on_chip_goes_through_hbm_and_a_broadcasting_dma():
    final = check_every_stage(on_chip_copy_kernel(128, 64, "i32"),
                              lambda x: [np.broadcast_to(x, (128, 64))])
    ops = executed_nki_ops(final)
    assert ops["nki.matmul"] == 0
    assert ops["nki.store"] == 2 and ops["nki.load"] == 2  # row out, back broadcast; Y


def bias_kernel(rows: int, n: int, op: str = "add") -> str:
    X, B = hbm(f"{rows}x{n}xf32"), hbm(f"1x{n}xf32")
    x, b = sbuf(f"{rows}x{n}xf32"), sbuf(f"1x{n}xf32")
    body = f"""  %x = tirx.alloc : {x}
  %b = tirx.alloc : {b}
  tirx.copy %x, %X : {x}, {X}
  tirx.copy %b, %B : {b}, {B}
  tirx.{op} %x, %x, %b : {x}, {x}, {b}
  tirx.copy %Y, %x : {X}, {x}"""
    return kernel_text(body, {"X": X, "B": B}, {"Y": X})


@pytest.mark.parametrize("rows, n, op, fn", [
    (128, 512, "add", np.add), (256, 512, "mul", np.multiply), (512, 256, "sub", np.subtract),
    (128, 1024, "maximum", np.maximum)])
def test_a_row_operand_is_broadcast_once_for_every_partition_tile(rows, n, op, fn):
    final = check_every_stage(bias_kernel(rows, n, op), lambda x, b: [fn(x, b)])
    ops = executed_nki_ops(final)
    assert ops["nki.matmul"] == -(-n // 512)  # one broadcast, however many row tiles
    assert ops["nki.tensor_tensor"] == (rows // 128) * -(-n // 512)


def test_a_one_dim_hbm_row_broadcasts_like_numpy():
    X, R = hbm("256xf32"), sbuf("128x256xf32")
    body = f"""  %r = tirx.alloc : {R}
  tirx.copy %r, %X : {R}, {X}
  tirx.copy %Y, %r : {hbm('128x256xf32')}, {R}"""
    text = kernel_text(body, {"X": X}, {"Y": hbm("128x256xf32")})
    check_every_stage(text, lambda x: [np.broadcast_to(x, (128, 256))])


def test_a_copy_broadcasts_like_numpy_and_refuses_other_shapes():
    parse_module(copy_from_hbm_kernel(128, 64), "<ok>").verify()
    rules.check_copy("tirx.copy", (128, 64), (64,))
    with pytest.raises(rules.RuleError, match="nor broadcasts"):
        rules.check_copy("tirx.copy", (128, 64), (2, 64))


ROW_OPS = {
    "fma": ("tirx.fma %x, %x, %g, %g : {x}, {x}, {g}, {g}", lambda x, g: x * g + g),
    "exp_bias": ("tirx.exp %x, %x bias %g : {x}, {x}, {g}",
                 lambda x, g: np.exp(x.astype(np.float64) + g)),
    "binary_chain": ("tirx.binary_chain %x, %x, %g, %g op0 mul op1 add : {x}, {x}, {g}, {g}",
                     lambda x, g: x * g + g),
    "row_on_the_left": ("tirx.maximum %x, %g, %x : {x}, {g}, {x}", lambda x, g: np.maximum(g, x)),
}


@pytest.mark.parametrize("name", sorted(ROW_OPS))
def test_every_elementwise_family_takes_a_row_operand(name):
    line, reference = ROW_OPS[name]
    x, g = sbuf("256x128xf32"), sbuf("1x128xf32")
    X, G = hbm("256x128xf32"), hbm("1x128xf32")
    body = f"""  %x = tirx.alloc : {x}
  %g = tirx.alloc : {g}
  tirx.copy %x, %X : {x}, {X}
  tirx.copy %g, %G : {g}, {G}
  {line.format(x=x, g=g)}
  tirx.copy %Y, %x : {X}, {x}"""
    check_every_stage(kernel_text(body, {"X": X, "G": G}, {"Y": X}),
                      lambda a, b: [reference(a, b)], rtol=2e-6, atol=1e-6)


def test_a_row_of_a_laid_out_hbm_tensor_is_read_through_its_layout():
    """Row 1 of a column-major [4, 256] HBM tensor: the broadcasting DMA walks its elements 4
    apart (both printers index the flat array by the layout)."""
    X = "!tirx.buffer<4x256xf32, global, S[(4,256):(1,4)]>"
    R, V = sbuf("128x256xf32"), "!tirx.buffer<1x256xf32, global>"
    body = f"""  %r = tirx.alloc : {R}
  %v = tirx.slice %X[1, 0] [1, 256] : {X} -> {V}
  tirx.copy %r, %v : {R}, {V}
  tirx.copy %Y, %r : {hbm('128x256xf32')}, {R}"""
    check_every_stage(kernel_text(body, {"X": X}, {"Y": hbm("128x256xf32")}),
                      lambda x: [np.broadcast_to(x[1:2], (128, 256))])
