"""Bounds on a run (tirx_mlir.interpreter.core): the step budget stops endless loops and huge
grids at the loop, with its location; recursion stops at the call; a zero loop step, a Python
exception inside an op and an allocation numpy cannot hold are sentences about the program."""

from __future__ import annotations

import numpy as np
import pytest

import tirx_mlir
from tirx_mlir.diagnostics import TirxError
from tirx_mlir.interpreter import InterpretError, KernelRunner, core, runtime
from tirx_mlir.interpreter.tirx_kernel import grid_ids
from tirx_mlir.located_parser import parse_module
from tirx_testing.endless import ENDLESS_WHILE

ARGS = "(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>)"


def kernel(body: str, grid: str = "1", before: str = "") -> str:
    return f"{before}tirx.kernel @k{ARGS} grid [{grid}] threads [1] {{\n{body}\n  tirx.return\n}}\n"


LOOP = kernel("""  %lb = arith.constant 0 : index
  %ub = arith.constant 1000000000000 : index
  %st = arith.constant 1 : index
  %two = arith.constant 2 : index
  scf.for %i = %lb to %two step %st {
    scf.for %j = %lb to %ub step %st {
      scf.yield
    }
    scf.yield
  }""")


X = np.zeros(4, np.float32)


def run(text: str, **kw):
    return tirx_mlir.interpret(text, "k", X, name="t.mlir", **kw)


def test_a_long_loop_stops_at_the_innermost_loop_naming_the_outer_one():
    with pytest.raises(InterpretError) as info:
        run(LOOP, max_steps=5000)
    err = info.value
    assert err.code == "step-budget"
    assert str(err).startswith("t.mlir:7:5: error: [step-budget] scf.for: the run exceeded its "
                               "budget of 5,000 steps (an op each, plus one per 256 elements a "
                               "tile op computes on) in this loop, nested in "
                               "scf.for at t.mlir:6:3")
    assert "--max-steps" in err.hint and "max_steps=" in err.hint


def test_an_endless_while_stops_at_the_while():
    with pytest.raises(InterpretError) as info:
        run(ENDLESS_WHILE, max_steps=1000)
    assert info.value.op.name == "scf.while"
    assert "budget of 1,000 steps" in info.value.message


def test_a_huge_grid_is_walked_lazily_and_stops_at_the_kernel():
    with pytest.raises(InterpretError) as info:
        run(kernel("", grid="2147483647, 2147483647, 65535"), max_steps=300)
    assert info.value.op.name == "tirx.kernel"
    assert "whose grid has 302,226,842,936,168,184,610,815 CTAs" in info.value.message
    assert "(in CTA (300, 0, 0) of @k)" in info.value.message


def test_grid_ids_are_x_fastest_and_lazy():
    ids = grid_ids((2, 2, 1))
    assert next(ids) == (0, 0, 0)
    assert list(ids) == [(1, 0, 0), (0, 1, 0), (1, 1, 0)]
    assert next(grid_ids((2**62, 2**62, 2**62))) == (0, 0, 0)


def test_the_budget_is_per_run_and_zero_means_no_limit():
    module = parse_module(kernel("""  %lb = arith.constant 0 : index
  %ub = arith.constant 50 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %ub step %st {
    scf.yield
  }"""), "t.mlir")
    runner = KernelRunner(module, "k", max_steps=60)
    runner(X)
    runner(X)  # a second run gets a fresh budget
    with pytest.raises(InterpretError, match="budget of 40 steps"):
        KernelRunner(module, "k", max_steps=40)(X)
    KernelRunner(module, "k", max_steps=0)(X)
    assert core.DEFAULT_MAX_STEPS >= 40 * 1_187_345  # the largest example (trn-lowered matmul)


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_max_steps_must_be_a_count(bad):
    with pytest.raises(TirxError, match="max_steps must be an integer >= 0"):
        run(LOOP, max_steps=bad)


def test_recursion_stops_at_the_call():
    text = kernel("""  %z = arith.constant 0 : index
  %r = func.call @f(%z) : (index) -> index""", before="""func.func @f(%x: index) -> index {
  %r = func.call @f(%x) : (index) -> index
  func.return %r : index
}
""")
    with pytest.raises(InterpretError) as info:
        run(text)
    assert info.value.code == "call-depth"
    assert info.value.op.name == "func.call"
    assert f"deeper than {core.MAX_CALL_DEPTH} levels" in info.value.message


def test_a_dynamic_zero_step_is_an_error_at_the_loop():
    text = kernel("""  %lb = arith.constant 0 : index
  %ub = arith.constant 10 : index
  %a = tirx.load %A[%lb] : !tirx.buffer<4xf32, global>
  %si = arith.fptosi %a : f32 to i64
  %st = arith.index_cast %si : i64 to index
  scf.for %i = %lb to %ub step %st {
    scf.yield
  }""")
    with pytest.raises(InterpretError) as info:
        run(text)
    assert info.value.op.name == "scf.for"
    assert "the loop step is 0; an scf.for step must be positive" in info.value.message
    assert "range()" not in str(info.value)


@pytest.mark.parametrize("exc, words", [
    (MemoryError(), "ran out of memory"),
    (RecursionError("maximum recursion depth exceeded"), "nests regions or calls too deeply"),
    (ZeroDivisionError("integer division or modulo by zero"), "division or remainder by zero"),
    (ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum"),
     "too large for numpy"),
])
def test_python_exceptions_become_sentences(exc, words):
    text = core.explain_exception(exc)
    assert words in text
    assert type(exc).__name__ not in text


def test_located_error_names_the_op_and_explains_the_exception():
    module = parse_module(kernel("  %z = arith.constant 0 : index"), "<t>")
    op = next(o for o in module.walk() if o.name == "arith.constant")
    cause = OverflowError("int too large to convert")
    err = core.located_error(cause, op)
    assert isinstance(err, InterpretError) and err.op is op
    assert err.message == "a value is too large for this op (int too large to convert)"
    assert err.__cause__ is cause
    assert str(err) == ("<t>:2:3: error: arith.constant: a value is too large for this op "
                        "(int too large to convert)")


def test_located_error_keeps_an_interpret_error_and_its_own_location():
    module = parse_module(kernel("  %z = arith.constant 0 : index"), "<t>")
    const, kern = (next(o for o in module.walk() if o.name == n)
                   for n in ("arith.constant", "tirx.kernel"))
    unlocated = InterpretError("index 9 in dim 0 is out of bounds for extent 4")
    assert core.located_error(unlocated, const) is unlocated and unlocated.op is const
    located = InterpretError("already located", kern)
    assert core.located_error(located, const) is located and located.op is kern


def test_zero_division_in_affine_index_arithmetic_is_located():
    text = kernel("""  %z = arith.constant 0 : index
  %r = affine.apply affine_map<(d0) -> (d0 mod 0)>(%z)""")
    with pytest.raises(InterpretError) as info:
        run(text)
    assert info.value.op.name == "affine.apply"
    assert "ZeroDivisionError" not in str(info.value)
    assert "division or remainder by zero" in info.value.message


@pytest.mark.parametrize("shape, words", [
    ((1,) * 5000, "it has 5,000 dims and numpy arrays hold at most 64"),
    ((2**64,), "18,446,744,073,709,551,616 elements, 64 EiB"),
    ((10**6, 10**6), "1,000,000,000,000 elements, 3.64 TiB (4,000,000,000,000 bytes), over the "
                     "interpreter's limit of 4 GiB"),
])
def test_allocations_numpy_cannot_hold_are_refused_before_trying(shape, words):
    with pytest.raises(InterpretError) as info:
        runtime.alloc(shape, np.dtype(np.float32), "the test buffer")
    assert "cannot allocate the test buffer" in info.value.message
    assert words in info.value.message


def test_the_allocation_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(runtime.MAX_BUFFER_BYTES_ENV, "1024")
    runtime.alloc((256,), np.dtype(np.float32))
    with pytest.raises(InterpretError, match=r"limit of 1 KiB \(1,024 bytes\)"):
        runtime.alloc((257,), np.dtype(np.float32))
    monkeypatch.setenv(runtime.MAX_BUFFER_BYTES_ENV, "lots")
    with pytest.raises(TirxError, match="is not a positive number of bytes"):
        runtime.alloc((1,), np.dtype(np.float32))


def test_an_on_chip_buffer_too_large_is_an_error_at_its_alloc():
    with pytest.raises(InterpretError) as info:
        run(kernel("  %a = tirx.alloc : !tirx.buffer<100000x100000xf32, shared>"))
    assert info.value.op.name == "tirx.alloc"
    assert "40,000,000,000 bytes" in info.value.message


def test_tile_ops_cost_a_step_per_256_elements_views_and_scalars_one():
    module = parse_module(kernel("""  %z = arith.constant 0 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %v = tirx.slice %s[%z, 0] [64, 32] : !tirx.buffer<64x64xf32, shared> -> !tirx.buffer<64x32xf32, shared>
  tirx.copy cta %v, %v : !tirx.buffer<64x32xf32, shared>, !tirx.buffer<64x32xf32, shared>
  %x = tirx.load %s[%z, %z] : !tirx.buffer<64x64xf32, shared>"""), "t.mlir")
    costs = {op.name: core.op_cost(op) for op in module.walk()}
    assert costs["tirx.copy"] == 1 + 2 * 64 * 32 // core.ELEMENTS_PER_STEP
    assert costs["tirx.slice"] == costs["tirx.alloc"] == costs["tirx.load"] == 1
