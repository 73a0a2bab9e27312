"""Guards: ``tirx.slice`` sizes given by index values (a dynamic extent bounded by the result
type's static size: the partial last tile of a loop, ``min(128, n - i * 128)`` rows). Each
kernel is checked at every stage (numpy == tile level == after every pass == shared SBUF/PSUM ==
printed NKI of both APIs on the stand-in); the errors are the ones a user meets: operands guarded
differently, a guard tirx-check-bounds refutes, and the CUDA dispatch,
which does not take dynamic extents yet."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_guards import row_loop
from tirx_testing.trn_lowering import kernel_text
from tirx_testing.trn_stages import check_every_stage

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.diagnostics import PassError
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

F32 = np.float32



def test_a_ragged_row_loop_of_elementwise_ops_at_every_stage():
    """Y = exp(X + B) * B over 1000 rows: 8 tiles, the last of 104 rows (tensor_tensor,
    activation, tensor_tensor on guarded views); both printers guard every instruction."""
    body = """    tirx.add %c, %a, %b : {s}, {s}, {s}
    tirx.exp %c, %c : {s}, {s}
    tirx.mul %c, %c, %b : {s}, {s}, {s}"""
    final = check_every_stage(row_loop(1000, 256, 8, body),
                              lambda x, b: [np.exp(x.astype(np.float64) + b) * b],
                              rtol=2e-6, atol=1e-6)
    current, legacy = emit_nki(final, "current"), emit_nki(final, "legacy")
    assert "X[nl.ds(128 * i, min(128, (1000 - (i * 128)))), :]" in current
    assert "mask=(i0 < -128 * i + 1000)" in legacy
    assert legacy.count("mask=") == 6  # two loads, add, exp, mul, store: every instruction


def test_the_interpreter_touches_only_the_guarded_rows():
    """Rows past the guard keep their values: the last tile's rows 104..127 of the SBUF tile
    still hold tile 6's, and Y has no row past 999 to write (the slice would be out of bounds
    at its maximum)."""
    from tirx_testing.trn_lowering import run

    module = parse_module(row_loop(1000, 8, 8, "    tirx.copy %c, %a : {s}, {s}"))
    x = np.arange(1000 * 8, dtype=F32).reshape(1000, 8)
    (y,) = run(module, [x, x])
    np.testing.assert_array_equal(y, x)


def test_a_guard_on_the_free_dim_of_a_reduction():
    """Row sums of X [128, 1000] over 2 column tiles of at most 512: the second holds 488
    columns, the guard on the reduced (free) dim of tensor_reduce."""
    X = buffer_type("128x1000xf32")
    T = buffer_type("128x512xf32")
    s = buffer_type("128x512xf32", scope="trn.sbuf")
    v = buffer_type("128x1xf32", scope="trn.sbuf")
    body = f"""  %t = tirx.alloc : {s}
  %part = tirx.alloc : {v}
  %acc = tirx.alloc : {v}
  %zero = arith.constant 0.0 : f32
  tirx.fill %acc, %zero : {v}, f32
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
    %tg = tirx.slice %t[0, 0] [128, %cols] : {s} -> {s}
    tirx.copy %tg, %xg : {s}, {T}
    tirx.sum %part, %tg : {v}, {s}
    tirx.add %acc, %acc, %part : {v}, {v}, {v}
  }}
  tirx.copy %S, %acc : {buffer_type("128x1xf32")}, {v}"""
    text = kernel_text(body, {"X": X}, {"S": buffer_type("128x1xf32")})
    final = check_every_stage(text, lambda x: [x.astype(np.float64).sum(1, keepdims=True)],
                              rtol=1e-5, atol=1e-4)
    assert "nl.ds(0, min(512, (1000 - (j * 512))))" in emit_nki(final, "current")


def _dispatch_error(text: str) -> PassError:
    with pytest.raises(PassError) as info:
        get_pipeline("trn").apply(parse_module(text))
    return info.value


def test_operands_guarded_differently_are_a_dispatch_error():
    body = """    %full = tirx.slice %tb[0, 0] [128, 64] : {s} -> {s}
    tirx.add %c, %a, %full : {s}, {s}, {s}"""
    err = _dispatch_error(row_loop(1000, 64, 8, body))
    assert "dim 0 is guarded in one operand but operand 'rhs' is not guarded there" in \
        err.message


@pytest.mark.parametrize("limit, message", [
    (1024, "dim 0: elements [896, 1023] are out of bounds for extent 1000 (when %i = 7)"),
])
def test_a_guard_that_leaves_the_buffer_is_a_bounds_error(limit, message):
    err = _dispatch_error(row_loop(1000, 8, 8, "    tirx.copy %c, %a : {s}, {s}", limit))
    assert message in err.message
    assert err.op.name == "tirx.slice"


def test_a_guard_above_its_maximum_is_a_bounds_error():
    """%n = 1000 - 128 i without the min: 1000 rows at i = 0, above the maximum of 128."""
    text = row_loop(1000, 8, 8, "    tirx.copy %c, %a : {s}, {s}").replace(
        "%rows = arith.minsi %c128, %left : index", "%rows = arith.addi %left, %c0 : index")
    err = _dispatch_error(text)
    assert "dim 0: the guarded size is 1000 (when %i = 0), outside [0, 128]" in err.message


def test_operands_guarded_differently_stop_the_tile_interpreter_at_the_op():
    from tirx_testing.trn_lowering import run

    from tirx_mlir.interpreter.runtime import InterpretError

    body = """    %full = tirx.slice %tb[0, 0] [128, 8] : {s} -> {s}
    tirx.add %c, %a, %full : {s}, {s}, {s}"""
    module = parse_module(row_loop(1000, 8, 8, body))
    x = np.zeros((1000, 8), F32)
    with pytest.raises(InterpretError, match=r"operands 'dst' and 'rhs' of tirx.add have the "
                                             r"type shape \[128, 8\] but \[104, 8\] and "
                                             r"\[128, 8\] elements at run time"):
        run(module, [x, x])


def test_scalar_operands_and_fused_reductions_on_guarded_rows():
    """exp2 with a constant bias (a shared (P, 1) bias tile and a scaled operand, both guarded
    like the data), and binary_reduce (tensor_scalar_reduce) into a guarded row sum."""
    v = buffer_type("128x1xf32", scope="trn.sbuf")
    body = """    %one = arith.constant 1.0 : f32
    %three = arith.constant 3.0 : f32
    tirx.exp2 %c, %a bias %one : {s}, {s}, f32
    %tv = tirx.alloc : VEC
    %v = tirx.slice %tv[0, 0] [%rows, 1] : VEC -> VEC
    tirx.binary_reduce %c, %v, %c, %three binary mul reduce sum : {s}, VEC, {s}, f32
    tirx.mul %c, %c, %v : {s}, {s}, VEC""".replace("VEC", v)

    def reference(x, b):
        y = np.exp2(x.astype(np.float64) + 1.0) * 3.0
        return [y * y.sum(axis=1, keepdims=True)]

    check_every_stage(row_loop(1000, 64, 8, body), reference, rtol=2e-5, atol=1e-4)


def _wide_guard(rows: int, cols: int, guard_dim: int) -> str:
    """A [rows, cols] SBUF tile whose dim ``guard_dim`` is guarded by min(max, 1000 - 0 * max)
    (at most its size), doubled in place."""
    X = buffer_type(f"{rows}x{cols}xf32")
    s = buffer_type(f"{rows}x{cols}xf32", scope="trn.sbuf")
    n = (rows, cols)[guard_dim]
    sizes = ["%g", str(cols)] if guard_dim == 0 else [str(rows), "%g"]
    body = f"""  %t = tirx.alloc : {s}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cmax = arith.constant {n} : index
  %climit = arith.constant {n - 3} : index
  scf.for %i = %c0 to %c1 step %c1 {{
    %g = arith.minsi %cmax, %climit : index
    %tg = tirx.slice %t[0, 0] [{", ".join(sizes)}] : {s} -> {s}
    %two = arith.constant 2.0 : f32
    tirx.mul %tg, %tg, %two : {s}, {s}, f32
  }}
  tirx.copy %Y, %t : {X}, {s}"""
    return kernel_text(body, {}, {"Y": X})


def test_a_guarded_free_dim_wider_than_one_instruction_says_what_to_write():
    err = _dispatch_error(_wide_guard(128, 1024, 1))
    assert "guarded dim 1 (at most 1024) does not fit one instruction (512 elements); one " \
           "instruction covers a guard: loop over tiles of 512 guarded by " \
           "min(512, n - 512 * t), or raise max_inst_size to 1024" in err.message
    assert err.op.name == "tirx.mul"


def test_a_guarded_partition_dim_over_several_tiles_says_what_to_write():
    err = _dispatch_error(_wide_guard(256, 64, 0))
    assert "guarded dim 0 (at most 256) crosses 2 layout tiles of an operand (of 128); a " \
           "guard bounds one tile: loop over tiles of 128 and guard each by " \
           "min(128, n - 128 * t), the last one partial" in err.message
