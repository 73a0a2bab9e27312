"""A block plan's compiled function (tirx_mlir.interpreter.block_code) runs what the step loop
runs: the same values in the same order, the same frame writes, the same located errors; and
blocks it cannot compile (a read before the definition) fall back to the loop."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.interpreter import KernelRunner, verify_module
from tirx_mlir.interpreter.block_code import MAX_STEPS, compile_steps
from tirx_mlir.interpreter.runtime import InterpretError
from tirx_mlir.located_parser import parse_module

G8 = "!tirx.buffer<8xf32, global>"
S8 = "!tirx.buffer<8xf32, shared>"

KERNEL = f"""tirx.kernel @k(%A: {G8}) -> (%C: {G8}) grid [2] threads [1] {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %x = arith.constant 3 : i32
  %y = arith.constant -5 : i32
  %cta = tirx.cta_id x : index
  %base = arith.muli %cta, %c4 : index
  %s = tirx.alloc : {S8}
  tirx.copy %s, %A : {S8}, {G8}
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %b = %y) -> (i32, i32) {{
    %lo, %hi = arith.mulsi_extended %a, %b : i32
    %k = arith.addi %base, %i : index
    %w = tirx.slice %s[%k] [1] : {S8} -> !tirx.buffer<1xf32, shared>
    tirx.exp %w, %w : !tirx.buffer<1xf32, shared>, !tirx.buffer<1xf32, shared>
    %f = arith.sitofp %lo : i32 to f32
    tirx.add %w, %w, %f : !tirx.buffer<1xf32, shared>, !tirx.buffer<1xf32, shared>, f32
    scf.yield %b, %lo : i32, i32
  }}
  %g = arith.sitofp %r#1 : i32 to f32
  tirx.mul %s, %s, %g : {S8}, {S8}, f32
  %o = tirx.slice %C[%base] [4] : {G8} -> !tirx.buffer<4xf32, global>
  %t = tirx.slice %s[%base] [4] : {S8} -> !tirx.buffer<4xf32, shared>
  tirx.copy %o, %t : !tirx.buffer<4xf32, global>, !tirx.buffer<4xf32, shared>
  tirx.return
}}
"""


def make_runner() -> KernelRunner:
    module = parse_module(KERNEL, "k.mlir")
    verify_module(module)
    return KernelRunner(module)


def plans(r: KernelRunner):
    return list(r.interpreter._block_plans.values())  # noqa: SLF001 - what the test inspects


def test_the_compiled_blocks_compute_the_step_loops_bits(rng):
    x = rng.standard_normal(8).astype(np.float32)
    r = make_runner()
    fast = r(x)[0]
    assert len(plans(r)) == 2 and all(p.compiled is not None for p in plans(r))
    for plan in plans(r):  # the same plans, run through the step loop
        plan.compiled = None
    r.interpreter._run_serial = -(10 ** 9)  # noqa: SLF001 - keep the plans as they are
    for plan in plans(r):
        plan.checked = r.interpreter._run_serial  # noqa: SLF001
    np.testing.assert_array_equal(r(x)[0], fast)
    assert np.isfinite(fast).all() and not np.array_equal(fast, x)


def test_compiled_blocks_write_every_result_to_the_frame():
    """Nested regions and `interp.get_values` readers find the values in the frame."""
    r = make_runner()
    seen = {}
    exp_op = next(op for op in r.module.walk() if op.name == "tirx.exp")
    loop = exp_op.parent_block()
    original = r.interpreter._block_plan(loop)  # noqa: SLF001

    def spy(interp, regs, local, compiled=None):
        out = compiled(interp, regs, local)
        seen.update({v: local[v] for op in loop.ops for v in op.results})
        return out

    r(np.zeros(8, np.float32))
    compiled = original.compiled
    original.compiled = lambda interp, regs, local: spy(interp, regs, local, compiled)
    r.interpreter._run_serial = -(10 ** 9)  # noqa: SLF001 - keep the spy in place
    for plan in plans(r):
        plan.checked = r.interpreter._run_serial  # noqa: SLF001
    r(np.zeros(8, np.float32))
    names = {v.name_hint for v in seen}
    assert {"lo", "hi", "k", "w", "f"} <= names


def test_an_error_in_a_compiled_block_is_located_at_the_op(monkeypatch):
    from tirx_mlir.interpreter import tirx_tile

    r = make_runner()
    r(np.zeros(8, np.float32))
    exp_op = next(op for op in r.module.walk() if op.name == "tirx.exp")

    def broken(call, v, interp):
        raise ZeroDivisionError("boom")

    from tirx_mlir.dialects.tirx import tile_ops as T

    monkeypatch.setitem(tirx_tile.SEMANTICS, T.ExpOp, broken)
    r2 = make_runner()
    exp2 = next(op for op in r2.module.walk() if op.name == "tirx.exp")
    with pytest.raises(InterpretError) as info:
        r2(np.zeros(8, np.float32))
    assert info.value.op is exp2 and "division or remainder by zero" in str(info.value)
    assert exp_op is not exp2


def test_a_block_reading_a_value_before_its_definition_is_not_compiled():
    r = make_runner()
    r(np.zeros(8, np.float32))
    add = next(op for op in r.module.walk() if isinstance(op, arith.AddiOp))
    sitofp = next(op for op in r.module.walk() if isinstance(op, arith.SIToFPOp))
    sitofp.detach()
    Rewriter.insert_op(sitofp, InsertPoint.before(add))
    add.detach()
    Rewriter.insert_op(add, InsertPoint.after(sitofp))
    lo = sitofp.operands[0].owner
    lo.detach()
    Rewriter.insert_op(lo, InsertPoint.after(add))  # %f now reads %lo before it is defined
    with pytest.raises(InterpretError) as info:
        r(np.zeros(8, np.float32))
    assert info.value.op is sitofp and "read before the op that defines it" in str(info.value)
    loop = sitofp.parent_block()
    assert r.interpreter._block_plan(loop).compiled is None  # noqa: SLF001


def test_blocks_longer_than_the_limit_run_through_the_loop():
    steps = [(None, lambda args: (), None, None, (), (), None, None, None)] * (MAX_STEPS + 1)
    assert compile_steps(steps, [()] * len(steps), None, 0, 0, lambda e, op: e) is None
    assert compile_steps(steps[:3], [()] * 3, None, 0, 0, lambda e, op: e) is not None
