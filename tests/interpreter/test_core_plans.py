"""What the interpreter caches between runs (tirx_mlir.interpreter.core `BlockPlan`, runtime
`PerOpCache`, `BufferPool` reuse, `run_loop`) never outlives the IR or the data it describes: a
runner kept across a rewrite runs the rewritten IR, a property set in place is read again, a
loop body sees what the previous iteration wrote, and a buffer that is still referenced is
never handed out again."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, f32, i64
from xdsl.interpreter import Interpreter
from xdsl.rewriter import Rewriter

from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.interpreter import KernelRunner, runtime, verify_module
from tirx_mlir.located_parser import parse_module

G4 = "!tirx.buffer<4xf32, global>"
L4 = "!tirx.buffer<4xf32, local>"


def runner(body: str, params: str = f"(%A: {G4}) -> (%C: {G4})") -> KernelRunner:
    module = parse_module(f"tirx.kernel @k{params} grid [1] threads [1] {{\n{body}\n"
                          f"  tirx.return\n}}\n", "t.mlir")
    verify_module(module)
    return KernelRunner(module)


ADD_ONE = f"""  %one = arith.constant 1.0 : f32
  %t = tirx.alloc : {L4}
  tirx.add %t, %A, %one : {L4}, {G4}, f32
  tirx.copy %C, %t : {G4}, {L4}"""

A = np.arange(4, dtype=np.float32)


def only(module, op_type):
    (op,) = [o for o in module.walk() if isinstance(o, op_type)]
    return op


def test_a_runner_kept_across_a_rewrite_runs_the_rewritten_ops():
    r = runner(ADD_ONE)
    np.testing.assert_array_equal(r(A)[0], A + 1)
    old = only(r.module, arith.ConstantOp)  # a new constant: the add's operand list changes
    Rewriter.replace_op(old, arith.ConstantOp(FloatAttr(5.0, f32)))
    np.testing.assert_array_equal(r(A)[0], A + 5)
    add = only(r.module, T.AddOp)  # an op inserted after the add runs too
    Rewriter.insert_op(T.MulOp(add.dst, add.dst, add.rhs), _after(add))
    np.testing.assert_array_equal(r(A)[0], (A + 5) * 5)


def _after(op):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.after(op)


def test_a_loop_body_rewritten_between_runs_runs_the_new_ops():
    """A plan is checked once per run: the body a loop ran 4 times in the last run is checked
    again in the next one."""
    r = runner(f"""{LOOP_HEAD}
  %one = arith.constant 1.0 : f32
  tirx.copy %C, %A : {G4}, {G4}
  scf.for %i = %c0 to %c4 step %c1 {{
    tirx.add %C, %C, %one : {G4}, {G4}, f32
  }}""")
    np.testing.assert_array_equal(r(A)[0], A + 4)
    add = only(r.module, T.AddOp)
    Rewriter.replace_op(add, T.MulOp(add.dst, add.lhs, add.rhs))
    np.testing.assert_array_equal(r(A)[0], A)  # C * 1, four times
    Rewriter.insert_op(T.AddOp(add.dst, add.dst, add.rhs),
                       _after(only(r.module, T.MulOp)))
    np.testing.assert_array_equal(r(A)[0], A + 4)


def test_an_op_erased_between_runs_no_longer_runs():
    r = runner(ADD_ONE + f"\n  tirx.mul %C, %C, %one : {G4}, {G4}, f32")
    r(A)
    mul = only(r.module, T.MulOp)
    mul.detach()
    mul.erase()
    np.testing.assert_array_equal(r(A)[0], A + 1)


def test_a_property_set_in_place_is_read_again():
    r = runner(f"""  %s = tirx.slice %A[0] [2] : {G4} -> !tirx.buffer<2xf32, global>
  %d = tirx.slice %C[0] [2] : {G4} -> !tirx.buffer<2xf32, global>
  tirx.copy %d, %s : !tirx.buffer<2xf32, global>, !tirx.buffer<2xf32, global>""")
    assert r(A)[0][:2].tolist() == [0.0, 1.0]
    src = [o for o in r.module.walk() if isinstance(o, SliceOp)][0]
    src.properties["static_offsets"] = DenseArrayBase.from_list(i64, [2])
    assert r(A)[0][:2].tolist() == [2.0, 3.0]


LOOP_HEAD = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index"""


def test_a_loop_body_reads_what_the_previous_iteration_wrote():
    r = runner(f"""{LOOP_HEAD}
  %s = tirx.alloc : {L4}
  tirx.copy %s, %A : {L4}, {G4}
  scf.for %i = %c0 to %c4 step %c1 {{
    tirx.add %s, %s, %s : {L4}, {L4}, {L4}
  }}
  tirx.copy %C, %s : {G4}, {L4}""")
    np.testing.assert_array_equal(r(A)[0], A * 16)


def test_an_alloc_in_a_loop_is_fresh_memory_in_every_iteration():
    r = runner(f"""{LOOP_HEAD}
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {{
    %t = tirx.alloc : !tirx.buffer<1xf32, local>
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {{
      tirx.fill %t, %one : !tirx.buffer<1xf32, local>, f32
    }}
    %d = tirx.slice %C[%i] [1] : {G4} -> !tirx.buffer<1xf32, global>
    tirx.copy %d, %t : !tirx.buffer<1xf32, global>, !tirx.buffer<1xf32, local>
  }}""")
    out = r(A)[0]
    assert out[0] == 1.0 and np.isnan(out[1:]).all()  # iterations 1-3 never wrote theirs


def test_an_alloc_in_a_loop_never_reuses_a_buffer_the_loop_still_carries():
    r = runner(f"""{LOOP_HEAD}
  %init = tirx.alloc : {L4}
  tirx.zero %init : {L4}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%prev = %init) -> ({L4}) {{
    %t = tirx.alloc : {L4}
    %n = arith.index_cast %i : index to i64
    %v = arith.sitofp %n : i64 to f32
    tirx.fill %t, %v : {L4}, f32
    tirx.add %t, %t, %prev : {L4}, {L4}, {L4}
    scf.yield %t : {L4}
  }}
  tirx.copy %C, %r : {G4}, {L4}""")
    np.testing.assert_array_equal(r(A)[0], np.full(4, 0 + 1 + 2 + 3, np.float32))


def test_a_loop_of_zero_iterations_returns_its_initial_values():
    r = runner(f"""{LOOP_HEAD}
  %z = arith.constant 2.0 : f32
  %r = scf.for %i = %c4 to %c0 step %c1 iter_args(%acc = %z) -> (f32) {{
    %n = arith.addf %acc, %acc : f32
    scf.yield %n : f32
  }}
  tirx.fill %C, %r : {G4}, f32""")
    np.testing.assert_array_equal(r(A)[0], np.full(4, 2.0, np.float32))


class _Names(Interpreter.Listener):
    def __init__(self):
        self.names: list[str] = []

    def will_interpret_op(self, op, args):
        self.names.append(op.name)


def test_listeners_see_every_op_of_every_iteration():
    r = runner(f"""{LOOP_HEAD}
  scf.for %i = %c0 to %c4 step %c1 {{
    %j = arith.addi %i, %c1 : index
  }}""")
    r(A)  # plans built first: the listener must still see each op
    names = _Names()
    r.interpreter.listeners = (*r.interpreter.listeners, names)
    r(A)
    assert names.names.count("arith.addi") == 4 and names.names.count("scf.yield") == 4


def test_the_pool_reuses_a_previous_buffer_only_when_nothing_else_refers_to_it():
    pool = runtime.BufferPool()
    frame = {"t": pool.alloc((4,), runtime.F32)}
    frame["t"][:] = 1.0
    first = id(frame["t"])
    frame["t"] = pool.alloc((4,), runtime.F32, (frame, "t"))
    assert id(frame["t"]) == first and np.isnan(frame["t"]).all()  # dead: re-filled, reused
    kept = frame["t"][1:]  # a view keeps it alive
    kept[:] = 2.0
    frame["t"] = pool.alloc((4,), runtime.F32, (frame, "t"))
    assert id(frame["t"]) != first and kept.tolist() == [2.0] * 3
    other = pool.alloc((2, 2), runtime.F32, (frame, "t"))  # another shape: a new buffer
    assert other.shape == (2, 2) and other is not frame["t"]


def test_prepared_ops_and_the_listened_path_compute_the_same_bits(rng):
    """With a listener every op runs through its registered implementation (`_run_op`);
    without one, through what `prepare_op` made of it: the results are identical."""
    r = runner(f"""{LOOP_HEAD}
  %two = arith.constant 2.5 : f32
  %s = tirx.alloc : {L4}
  tirx.copy %s, %A : {L4}, {G4}
  scf.for %i = %c0 to %c4 step %c1 {{
    %j = arith.muli %i, %c1 : index
    %w = tirx.slice %s[%j] [1] : {L4} -> !tirx.buffer<1xf32, local>
    tirx.exp %w, %w : !tirx.buffer<1xf32, local>, !tirx.buffer<1xf32, local>
    tirx.mul %s, %s, %two : {L4}, {L4}, f32
  }}
  tirx.copy %C, %s : {G4}, {L4}""")
    x = rng.standard_normal(4).astype(np.float32)
    fast = r(x)[0]
    r.interpreter.listeners = (*r.interpreter.listeners, _Names())
    np.testing.assert_array_equal(r(x)[0], fast)


def test_an_op_that_fails_to_prepare_gets_an_error_located_at_it(monkeypatch):
    """Plans are checked before the block runs: what preparing an op raises still names it."""
    from tirx_mlir.interpreter import tirx_kernel
    from tirx_mlir.interpreter.runtime import InterpretError

    r = runner(ADD_ONE)

    def broken(op):
        raise RuntimeError("cannot decode")

    monkeypatch.setattr(tirx_kernel, "_alloc_facts", broken)
    try:
        r(A)
    except InterpretError as err:
        assert err.op is not None and err.op.name == "tirx.alloc"
        assert "RuntimeError: cannot decode" in str(err)
    else:
        raise AssertionError("the run did not fail")


def _gemm_runner(dtype: str, transpose: str) -> KernelRunner:
    g, s = f"!tirx.buffer<4x4x{dtype}, global>", f"!tirx.buffer<4x4x{dtype}, shared>"
    acc = "!tirx.buffer<4x4xf32, local>"
    out = "!tirx.buffer<4x4xf32, global>"
    return runner(f"""{LOOP_HEAD}
  %acc = tirx.alloc : {acc}
  %sa = tirx.alloc : {s}
  tirx.zero %acc : {acc}
  scf.for %i = %c0 to %c4 step %c1 {{
    tirx.copy %sa, %A : {s}, {g}
    tirx.gemm %acc, %sa, %B{transpose} beta 1.0 : {acc}, {s}, {g}
  }}
  tirx.copy %C, %acc : {out}, {acc}""", f"(%A: {g}, %B: {g}) -> (%C: {out})")


def test_plain_copies_and_accumulating_gemms_skip_the_generic_semantics(monkeypatch, rng):
    """A copy between f32 buffers of one shape and an f32 ``D += A @ B`` gemm run as their
    prepared numpy calls (the generic semantics are never reached), with numpy's result."""
    from tirx_mlir.interpreter import tirx_tile

    def refuse(call, values, interp):
        raise AssertionError(f"{call.op.name} ran its generic semantics")

    monkeypatch.setitem(tirx_tile.SEMANTICS, T.CopyOp, refuse)
    monkeypatch.setitem(tirx_tile.SEMANTICS, T.GemmOp, refuse)
    a, b = (rng.standard_normal((4, 4)).astype(np.float32) for _ in range(2))
    for transpose, expect in (("", a @ b), (" transpose_a transpose_b", a.T @ b.T)):
        acc = np.zeros((4, 4), np.float32)
        for _ in range(4):
            acc += expect
        np.testing.assert_array_equal(_gemm_runner("f32", transpose)(a, b)[0], acc)


def test_accumulating_gemms_compute_the_same_bits_prepared_and_listened(rng):
    """The prepared ``D += A @ B`` (f32 operands) and its fallback to `_gemm` (bf16 operands,
    computed in f32) give the bits of the registered implementation, which the listened path
    runs."""
    import ml_dtypes

    for dtype, np_dtype in (("f32", np.float32), ("bf16", ml_dtypes.bfloat16)):
        for transpose in ("", " transpose_a", " transpose_b"):
            r = _gemm_runner(dtype, transpose)
            a, b = (rng.standard_normal((4, 4)).astype(np_dtype) for _ in range(2))
            fast = r(a, b)[0]
            r.interpreter.listeners = (*r.interpreter.listeners, _Names())
            np.testing.assert_array_equal(r(a, b)[0], fast)
            ref = np.zeros((4, 4), np.float32)
            x = a.astype(np.float32).T if "_a" in transpose else a.astype(np.float32)
            y = b.astype(np.float32).T if "_b" in transpose else b.astype(np.float32)
            for _ in range(4):
                ref += x @ y
            np.testing.assert_allclose(fast, ref, rtol=1e-6, atol=1e-6)


def test_a_nested_loop_body_reads_the_values_of_the_enclosing_iteration():
    """A loop body's externals (`BlockPlan`, read once per loop run) are read again each time
    the loop runs: the inner body sees the value the current outer iteration defined."""
    r = runner(f"""{LOOP_HEAD}
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %n = arith.index_cast %i : index to i64
    %v = arith.sitofp %n : i64 to f32
    %d = tirx.slice %C[%i] [1] : {G4} -> !tirx.buffer<1xf32, global>
    scf.for %j = %c0 to %c2 step %c1 {{
      tirx.fill %d, %v : !tirx.buffer<1xf32, global>, f32
    }}
  }}""")
    np.testing.assert_array_equal(r(A)[0], A)


def test_results_of_several_values_and_yields_of_several_operands_keep_their_order():
    """Multi-result ops and an ``scf.yield`` of two values go through the slots in order
    (a swap each iteration: 4 swaps give the initial order back, 3 the swapped one)."""
    r = runner(f"""{LOOP_HEAD}
  %c3 = arith.constant 3 : index
  %x = arith.constant 7 : i32
  %y = arith.constant -3 : i32
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x, %b = %y) -> (i32, i32) {{
    %lo, %hi = arith.mulsi_extended %a, %b : i32
    scf.yield %b, %a : i32, i32
  }}
  %lo, %hi = arith.mulsi_extended %r#0, %x : i32
  %f = arith.sitofp %lo : i32 to f32
  %g = arith.sitofp %hi : i32 to f32
  %d0 = tirx.slice %C[0] [1] : {G4} -> !tirx.buffer<1xf32, global>
  %d1 = tirx.slice %C[1] [1] : {G4} -> !tirx.buffer<1xf32, global>
  tirx.fill %d0, %f : !tirx.buffer<1xf32, global>, f32
  tirx.fill %d1, %g : !tirx.buffer<1xf32, global>, f32""")
    out = r(A)[0]
    assert out[:2].tolist() == [-21.0, -1.0]  # r#0 = -3 after 3 swaps; -3 * 7, high word -1


def test_a_value_read_before_its_definition_runs_is_an_error_located_at_the_reader():
    """IR that a rewrite left breaking dominance (the run does not verify it first) stops with
    an error naming the op that reads too early, not a Python traceback."""
    from xdsl.rewriter import InsertPoint

    from tirx_mlir.interpreter.runtime import InterpretError

    r = runner(f"""{LOOP_HEAD}
  scf.for %i = %c0 to %c4 step %c1 {{
    %k = arith.addi %i, %c1 : index
    %j = arith.muli %k, %c4 : index
  }}""")
    r(A)
    mul = only(r.module, arith.MuliOp)
    mul.detach()
    Rewriter.insert_op(mul, InsertPoint.before(only(r.module, arith.AddiOp)))
    try:
        r(A)
    except InterpretError as err:
        assert err.op is mul and "operand #0 is read before the op that defines it" in str(err)
    else:
        raise AssertionError("the run did not fail")


def test_a_plain_zero_skips_the_generic_semantics_and_keeps_its_bits(monkeypatch):
    """``tirx.zero`` of a buffer of a numpy type is one assignment; another type (bf16) runs
    the generic semantics: both give the bits of the registered implementation."""
    import ml_dtypes

    from tirx_mlir.interpreter import tirx_tile

    def zero_runner(dtype: str) -> KernelRunner:
        g, loc = f"!tirx.buffer<4x{dtype}, global>", f"!tirx.buffer<4x{dtype}, local>"
        return runner(f"""  %t = tirx.alloc : {loc}
  tirx.zero %t : {loc}
  tirx.copy %C, %t : {g}, {loc}""", f"(%A: {g}) -> (%C: {g})")

    cases = (("f32", np.float32), ("i32", np.int32), ("i1", np.bool_),
             ("bf16", ml_dtypes.bfloat16))
    listened = {}
    for dtype, np_dtype in cases:
        r = zero_runner(dtype)
        r.interpreter.listeners = (*r.interpreter.listeners, _Names())
        listened[dtype] = r(np.ones(4, np_dtype))[0]
    generic = tirx_tile.SEMANTICS[T.ZeroOp]

    def only_bf16(call, values, interp):
        assert call.op.dst.type.element_type.name == "bf16", "the generic semantics ran"
        return generic(call, values, interp)

    monkeypatch.setitem(tirx_tile.SEMANTICS, T.ZeroOp, only_bf16)
    for dtype, np_dtype in cases:
        out = zero_runner(dtype)(np.ones(4, np_dtype))[0]
        assert out.dtype == listened[dtype].dtype and out.tobytes() == listened[dtype].tobytes()
        assert not out.any()



def _dynamic_slices(grid: int) -> KernelRunner:
    g, out = "!tirx.buffer<8x8xf32, global>", "!tirx.buffer<2x4xf32, global>"
    module = parse_module(f"""tirx.kernel @k(%A: {g}) -> (%C: {g}) grid [{grid}] threads [1] {{
  %c2 = arith.constant 2 : index
  %cta = tirx.cta_id x : index
  %o = arith.muli %cta, %c2 : index
  %v = tirx.slice %A[%o, 1] [2, 4] : {g} -> {out}
  %w = tirx.slice %C[%o, %o] [2, 4] : {g} -> {out}
  tirx.copy %w, %v : {out}, {out}
  tirx.return
}}
""", "s.mlir")
    verify_module(module)
    return KernelRunner(module)


def test_a_slice_with_dynamic_offsets_views_what_numpy_views_and_reports_out_of_bounds():
    """The prepared slice (one function per op, the offsets' bounds inline) gives numpy's
    view in bounds; an offset past the last valid one is the located out-of-bounds error."""
    from tirx_mlir.interpreter.runtime import InterpretError

    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.full((8, 8), 7.0, np.float32)
    _dynamic_slices(3)(a, out)
    expected = np.full((8, 8), 7.0, np.float32)
    for o in (0, 2, 4):
        expected[o:o + 2, o:o + 4] = a[o:o + 2, 1:5]
    np.testing.assert_array_equal(out, expected)
    r = _dynamic_slices(4)  # CTA 3: %C[6, 6] [2, 4] ends past column 7
    with pytest.raises(InterpretError) as info:
        r(a, out)
    (late,) = [op for op in r.module.walk() if isinstance(op, SliceOp) and
               op.source.name_hint == "C"]
    assert info.value.op is late and "CTA (3, 0, 0)" in str(info.value)
