"""The completion of cp.async copies the program does not wait for (dispatch/async_completion.py):
numerics through every stage (the SIMT interpreter refuses to read a cp.async destination
before a wait, so a missing completion fails), and the placement on a long kernel, whose
pending set the one forward walk carries across hundreds of tile ops."""

from __future__ import annotations

import numpy as np
from tirx_testing.cuda_every_stage import check_every_stage, lower

G64, G32, SH = ("!tirx.buffer<64xf32, global>", "!tirx.buffer<32xf32, global>",
                "!tirx.buffer<32xf32, shared>")

NESTED = f"""tirx.kernel @k(%X: {G64}) -> (%Y: {G64}, %Z: {G64}) grid [1] threads [32]
    target "cuda -arch=sm_80" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %a = tirx.alloc : {SH}
  %b = tirx.alloc : {SH}
  scf.for %i = %c0 to %c2 step %c1 {{
    %o = arith.muli %i, %c32 : index
    %x = tirx.slice %X[%o] [32] : {G64} -> {G32}
    %y = tirx.slice %Y[%o] [32] : {G64} -> {G32}
    %z = tirx.slice %Z[%o] [32] : {G64} -> {G32}
    tirx.copy_async warp %a, %x : {SH}, {G32}
    tirx.copy_async warp %b, %x : {SH}, {G32}
    scf.for %j = %c0 to %c2 step %c1 {{
      tirx.copy warp %y, %a : {G32}, {SH}
    }}
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {{
      tirx.copy warp %z, %b : {G32}, {SH}
    }} else {{
      tirx.copy warp %z, %b : {G32}, {SH}
    }}
  }}
  tirx.return
}}
"""


def test_copies_completed_in_nested_loops_and_branches():
    """Two buffers copied per iteration of an outer loop, one read in an inner loop, the
    other in both branches of an if: one completion, before the inner loop's reader (the
    branches find nothing pending); numpy == tile == SIMT after every pass, nvcc and ptxas
    take it."""
    final = check_every_stage(NESTED, lambda x: [x, x], arch="sm_80", name="k")
    assert str(final).count("ptx.cp_async_wait_all") == 1


def long_kernel(groups: int) -> str:
    """``groups`` rounds of: a cp.async into %a, a copy into %b (nothing pending there), a
    reader of %b (waits for nothing), a reader of %a (waits)."""
    body = []
    for _ in range(groups):
        body += [f"  tirx.copy_async warp %a, %X : {SH}, {G32}",
                 f"  tirx.copy warp %b, %X : {SH}, {G32}",
                 f"  tirx.copy warp %Y, %b : {G32}, {SH}",
                 f"  tirx.copy warp %Y, %a : {G32}, {SH}"]
    return (f'tirx.kernel @k(%X: {G32}) -> (%Y: {G32}) grid [1] threads [32]\n'
            f'    target "cuda -arch=sm_80" {{\n  %a = tirx.alloc : {SH}\n'
            f'  %b = tirx.alloc : {SH}\n' + "\n".join(body) + "\n  tirx.return\n}\n")


def test_a_long_kernel_waits_once_per_round_before_the_reader():
    module = lower(long_kernel(60), "k")
    names = [op.name for op in module.walk()
             if op.name in ("ptx.cp_async", "ptx.cp_async_wait_all", "ptx.st", "ptx.ld")]
    # per round: cp.async into a; ld/st (b <- X), ld/st (Y <- b); the wait; ld/st (Y <- a)
    round_ = ["ptx.cp_async"] + ["ptx.ld", "ptx.st"] * 2 + ["ptx.cp_async_wait_all",
                                                           "ptx.ld", "ptx.st"]
    assert names == round_ * 60
    x = np.random.default_rng(0).standard_normal(32).astype(np.float32)
    from tirx_mlir.backends.cuda.interpreter import simulate
    np.testing.assert_array_equal(simulate(module, "k", x).outputs[0], x)
