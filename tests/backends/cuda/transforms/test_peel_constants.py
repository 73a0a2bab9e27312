"""``cuda-peel-constants``: the swizzled offsets of one thread's chunks become one swizzle of
the thread's offset plus a constant per chunk (CSE then shares the swizzle), a constant whose
bits meet the variable's stays inside, and the kernel computes the same (SIMT interpreter)."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from tirx_mlir.backends.cuda.transforms.peel_constants import CudaPeelConstantsPass
from tirx_mlir.located_parser import parse_module
from tirx_testing.simt import cuda_kernel, run_simt

G = "!tirx.buffer<2048xf32, global>"


def swizzled_copy(steps: list[int]) -> str:
    """Thread t copies element ``swizzle(t + step)`` for each step: 16-element rows, chunk
    c -> c ^ (row % 4) on 4-element chunks (a swizzle(2,2,4)-like XOR)."""
    lines = [f"  %t = cuda.thread_idx x : index",
             *(f"  %c{v} = arith.constant {v} : index" for v in sorted({2, 3, 4, 12, *steps}))]
    for j, step in enumerate(steps):
        lines += [f"  %x{j} = arith.addi %t, %c{step} : index",
                  f"  %h{j} = arith.shrui %x{j}, %c4 : index",
                  f"  %m{j} = arith.andi %h{j}, %c3 : index",
                  f"  %s{j} = arith.shli %m{j}, %c2 : index",
                  f"  %y{j} = arith.xori %x{j}, %s{j} : index",
                  f"  %v{j} = cuda.load %X, %y{j} : {G}, index -> f32",
                  f"  cuda.store %Y, %y{j}, %v{j} : {G}, index, f32"]
    return cuda_kernel(f"(%X: {G}) -> (%Y: {G})", "\n".join(lines), "grid [1] threads [64]",
                       "cuda -arch=sm_80")


def peeled(text: str):
    module = parse_module(text, "k.mlir")
    for p in (CudaPeelConstantsPass(), CommonSubexpressionElimination(), DeadCodeElimination()):
        p.apply(Context(), module)
    module.verify()
    return module


def count(module, kind) -> int:
    return sum(isinstance(op, kind) for op in module.walk())


def test_chunks_a_row_block_apart_share_one_swizzle():
    text = swizzled_copy([64, 128, 192, 256])  # multiples of 64 > every t: bits disjoint
    assert count(parse_module(text, "k.mlir"), arith.XOrIOp) == 4
    module = peeled(text)
    assert count(module, arith.XOrIOp) == 1  # swizzle(t), then + 64 j
    x = np.random.default_rng(0).random(2048, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, before)
    written = ~np.isnan(before)
    assert written.sum() == 4 * 64 and np.array_equal(before[written], x[written])


def test_a_step_that_carries_into_the_thread_bits_stays_inside():
    text = swizzled_copy([64, 12])  # t + 12 carries: (t + 12) ^ s is not t ^ s + 12
    module = peeled(text)
    assert count(module, arith.XOrIOp) == 2
    x = np.random.default_rng(1).random(2048, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, before)


def test_a_step_that_flips_a_swizzled_bit_and_moves_rows_shares_the_flip():
    """Thread offsets ``a = t % 8 + (t / 8) * 16`` leave bit 3 free, so ``a + 8 + 256 j``
    swizzles to ``swizzle(a) ^ (8 + 256 j)``: bit 3 meets the swizzled bits, the rows do not,
    and each becomes ``(swizzle(a) ^ 8) + 256 j``, one ``^ 8`` for every j (the second K half
    of an ldmatrix tile, its m16 blocks an immediate apart)."""
    steps = [8, 8 + 256, 8 + 512]
    text = swizzled_copy(steps).replace(
        "%t = cuda.thread_idx x : index",
        "%tid = cuda.thread_idx x : index\n  %e8 = arith.constant 8 : index\n"
        "  %e16 = arith.constant 16 : index\n"
        "  %lo = arith.remui %tid, %e8 : index\n  %hi = arith.divui %tid, %e8 : index\n"
        "  %hi16 = arith.muli %hi, %e16 : index\n  %t = arith.addi %lo, %hi16 : index")
    before_xors = count(parse_module(text, "k.mlir"), arith.XOrIOp)
    module = peeled(text)
    assert before_xors == 3 and count(module, arith.XOrIOp) == 2  # swizzle(a), then ^ 8
    x = np.random.default_rng(2).random(2048, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, before)
    written = ~np.isnan(before)
    assert written.sum() == 3 * 64 and np.array_equal(before[written], x[written])
