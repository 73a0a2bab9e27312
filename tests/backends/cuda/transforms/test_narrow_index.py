"""``cuda-narrow-index`` and the ranges it rests on (`index_ranges`): what is proven, what is
folded, what is narrowed and what stays 64-bit, with the SIMT interpreter computing the same
before and after; the printed PTX sign-extends a narrowed global offset once and folds its
constant terms into the address."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType

from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.transforms.index_ranges import Range, value_ranges
from tirx_mlir.backends.cuda.transforms.narrow_index import CudaNarrowIndexPass
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.located_parser import parse_module
from tirx_testing.simt import cuda_kernel, run_simt

G = "!tirx.buffer<4096xf32, global>"
BODY = f"""  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %row = arith.divui %t, %c4 : index
  %col = arith.remui %t, %c4 : index
  %r2 = arith.addi %row, %c4 : index
  %wrapped = arith.remui %r2, %c128 : index
  %base = arith.muli %b, %c1024 : index
  %off = arith.muli %wrapped, %c4 : index
  %o1 = arith.addi %off, %col : index
  %i = arith.addi %base, %o1 : index
  %x = cuda.load %X, %i : {G}, index -> f32
  cuda.store %Y, %i, %x : {G}, index, f32
"""
TEXT = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", BODY, "grid [4] threads [128]", "cuda -arch=sm_80")


def narrowed(text: str):
    module = parse_module(text, "k.mlir")
    CudaNarrowIndexPass().apply(Context(), module)
    module.verify()
    return module


def kernel_of(module) -> KernelOp:
    return next(op for op in module.walk() if isinstance(op, KernelOp))


def by_name(module) -> dict:
    """Ops by their result's name (the casts a narrowed value's index users read skipped)."""
    return {op.results[0].name_hint: op for op in module.walk()
            if op.results and op.results[0].name_hint and not isinstance(op, arith.IndexCastOp)}


def test_ranges_come_from_the_launch_and_the_arithmetic():
    module = parse_module(TEXT, "k.mlir")
    ranges = value_ranges(kernel_of(module))
    ops = by_name(module)
    assert ranges[ops["t"].results[0]] == Range(0, 127)
    assert ranges[ops["b"].results[0]] == Range(0, 3)
    assert ranges[ops["row"].results[0]] == Range(0, 31)
    assert ranges[ops["col"].results[0]] == Range(0, 3)
    assert ranges[ops["wrapped"].results[0]] == Range(4, 35)  # (row + 4) % 128 never wraps
    assert ranges[ops["i"].results[0]] == Range(16, 3072 + 143)


def test_a_remainder_the_ranges_decide_is_folded_and_the_offsets_become_i32():
    module = narrowed(TEXT)
    names = [op.name for op in module.walk()]
    assert names.count("arith.remui") == 1  # col's stays: t % 4 is not t
    i32 = [op for op in module.walk() if isinstance(op, arith.AddiOp | arith.MuliOp)]
    assert i32 and all(op.results[0].type == IntegerType(32) for op in i32)
    nsw = [op for op in i32 if isinstance(op, arith.AddiOp)]
    assert all(arith.IntegerOverflowFlag.NSW in op.overflow_flags.data for op in nsw)


def test_the_kernel_computes_the_same_before_and_after():
    x = np.random.default_rng(0).random(4096, dtype=np.float32)
    (before,), _ = run_simt(TEXT, x)
    (after,), _ = run_simt(str(narrowed(TEXT)), x)
    np.testing.assert_array_equal(after, before)
    assert np.count_nonzero(~np.isnan(before)) == 4 * 128  # unwritten outputs read NaN


def test_a_value_that_may_not_fit_32_bits_stays_index():
    big = "!tirx.buffer<4194304xf32, global>"
    body = f"""  %b = cuda.block_idx x : index
  %c1 = arith.constant 1048576 : index
  %c2 = arith.constant 1024 : index
  %base = arith.muli %b, %c1 : index
  %wide = arith.muli %base, %c2 : index
  %i = arith.divui %wide, %c2 : index
  %x = cuda.load %X, %i : {big}, index -> f32
  cuda.store %Y, %i, %x : {big}, index, f32
"""
    text = cuda_kernel(f"(%X: {big}) -> (%Y: {big})", body, "grid [4] threads [1]",
                       "cuda -arch=sm_80")
    ops = by_name(narrowed(text))
    assert ops["base"].results[0].type == IntegerType(32)  # at most 3 * 2^20
    assert ops["wide"].results[0].type == IndexType()      # up to 3 * 2^30: not i32
    assert ops["i"].results[0].type == IndexType()


def test_ptx_sign_extends_a_narrowed_global_offset_once_and_folds_its_constant():
    body = f"""  %t = cuda.thread_idx x : index
  %c512 = arith.constant 512 : index
  %j = arith.addi %t, %c512 : index
  %x = cuda.load %X, %t : {G}, index -> f32
  %y = cuda.load %X, %j : {G}, index -> f32
  %s = arith.addf %x, %y : f32
  cuda.store %Y, %t, %s : {G}, index, f32
"""
    text = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", body, "grid [1] threads [128]",
                       "cuda -arch=sm_80")
    ptx = emit_ptx(narrowed(text))
    assert "mad.wide.s32" in ptx  # %j's i32 register, sign-extended by the multiply-add
    assert "add.s64 %rd" in ptx and ", 2048;" in ptx  # 512 floats: the immediate of the load
    x = np.random.default_rng(1).random(4096, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(narrowed(text)), x)
    np.testing.assert_array_equal(after, before)
    np.testing.assert_array_equal(before[:128], x[:128] + x[512:640])


def test_a_shift_by_32_or_more_stays_index():
    """``t >> 40`` is exact on index (0) but poison on i32: only shifts by less than 32 narrow,
    and the kernel computes the same before and after."""
    body = f"""  %t = cuda.thread_idx x : index
  %c40 = arith.constant 40 : index
  %c2 = arith.constant 2 : index
  %far = arith.shrsi %t, %c40 : index
  %near = arith.shli %t, %c2 : index
  %i = arith.addi %far, %t : index
  %x = cuda.load %X, %i : {G}, index -> f32
  cuda.store %Y, %t, %x : {G}, index, f32
"""
    text = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", body, "grid [1] threads [32]",
                       "cuda -arch=sm_80")
    module = narrowed(text)
    ops = by_name(module)
    assert ops["far"].results[0].type == IndexType()
    assert ops["near"].results[0].type == IntegerType(32)
    x = np.random.default_rng(2).random(4096, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, before)
    np.testing.assert_array_equal(before[:32], x[:32])


def _loop_kernel(ub: int, step: int) -> str:
    body = f"""  %t = cuda.thread_idx x : index
  %c0 = arith.constant 0 : index
  %ub = arith.constant {ub} : index
  %st = arith.constant {step} : index
  %c128 = arith.constant 128 : index
  scf.for %k = %c0 to %ub step %st {{
    %q = arith.divui %k, %st : index
    %r = arith.muli %q, %c128 : index
    %i = arith.addi %r, %t : index
    %x = cuda.load %X, %i : {G}, index -> f32
    cuda.store %Y, %i, %x : {G}, index, f32
  }}
"""
    return cuda_kernel(f"(%X: {G}) -> (%Y: {G})", body, "grid [1] threads [128]",
                       "cuda -arch=sm_80")


def test_a_loop_counts_on_i32_when_its_bounds_and_last_step_fit():
    from xdsl.dialects import scf

    def iv_type(text):
        loop = next(op for op in narrowed(text).walk() if isinstance(op, scf.ForOp))
        return loop.body.block.args[0].type, loop.lb.type

    assert iv_type(_loop_kernel(1024, 32)) == (IntegerType(32), IntegerType(32))
    # the increment after the last trip reaches ub + step - 1 > 2^31 - 1: stays index
    assert iv_type(_loop_kernel(2**31 - 2, 2**20)) == (IndexType(), IndexType())
    text = _loop_kernel(1024, 32)
    assert "setp.ge.s32" in emit_ptx(narrowed(text))
    x = np.random.default_rng(2).random(4096, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(narrowed(text)), x)
    np.testing.assert_array_equal(after, before)
    np.testing.assert_array_equal(before, x)  # 32 trips cover the buffer


def test_a_narrowed_value_gets_an_index_cast_only_for_users_that_stay_index():
    module = narrowed(TEXT)
    casts = [op for op in module.walk() if isinstance(op, arith.IndexCastOp)]
    # %i (read by the load and the store) is the one narrowed value with index users;
    # %o1, %off, ... are read only by narrowed ops, which read their i32 twins: no cast
    wide = [op for op in casts if op.results[0].type == IndexType()]
    assert len(wide) == 1 and wide[0].operands[0].name_hint == "i"
    assert all(op.results[0].uses for op in casts)  # nothing built for cse to erase
    users = {use.operation.name for use in wide[0].results[0].uses}
    assert users == {"cuda.load", "cuda.store"}
    assert wide[0].prev_op is wide[0].operands[0].owner  # right after its i32 twin
