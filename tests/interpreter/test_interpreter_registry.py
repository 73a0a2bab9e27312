"""Implementation sets come from tirx_mlir.registry.interpreter_functions: a backend plugs its
dialects in there; two sets claiming one op conflict; an op nobody implements is a located error."""

import pytest
from xdsl.dialects import arith
from xdsl.dialects import test as test_dialect
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tirx_mlir import registry
from tirx_mlir.located_parser import parse_module
from tirx_mlir.interpreter import InterpretError, make_interpreter

PROGRAM = """func.func @f() -> i32 {
  %x = "test.op"() : () -> i32
  func.return %x : i32
}
"""


@register_impls
class AnswerFunctions(InterpreterFunctions):
    @impl(test_dialect.TestOp)
    def run_test_op(self, interp, op, args):
        return (42,)


@register_impls
class RivalArithFunctions(InterpreterFunctions):
    @impl(arith.AddiOp)
    def run_addi(self, interp, op, args):
        return (0,)


@pytest.fixture
def fake_backend():
    yield
    registry.drop_owner_everywhere("fake_backend")


def test_core_sets_are_registered():
    import tirx_mlir.interpreter  # noqa: F401

    for name in ("tirx", "arith", "math"):
        assert registry.interpreter_functions.owner_of(name) == "core"


def test_a_backend_registered_set_is_used(fake_backend):
    with registry.owner_scope("fake_backend"):
        registry.register_interpreter_functions("answer", lambda: AnswerFunctions)
    assert make_interpreter(parse_module(PROGRAM)).call_op("f", ()) == (42,)


def test_two_sets_implementing_one_op_conflict(fake_backend):
    with registry.owner_scope("fake_backend"):
        registry.register_interpreter_functions("rival", lambda: RivalArithFunctions)
    with pytest.raises(registry.RegistryError, match=r"'arith' and 'rival' both implement "
                                                     r"arith\.addi"):
        make_interpreter(parse_module(PROGRAM))


def test_rollback_removes_the_backend_set(fake_backend):
    with registry.owner_scope("fake_backend"):
        registry.register_interpreter_functions("answer", lambda: AnswerFunctions)
    registry.drop_owner_everywhere("fake_backend")
    with pytest.raises(InterpretError, match=r"p\.mlir:2:3: error: test\.op: no interpreter "
                                             r"implementation for this op"):
        make_interpreter(parse_module(PROGRAM, "p.mlir")).call_op("f", ())


def test_every_core_op_has_an_implementation_method():
    """Each tile primitive, scope id and table-driven math op has its own ``@impl`` method."""
    from xdsl.dialects import math

    from tirx_mlir.dialects.tirx import kernel, tile_ops
    from tirx_mlir.interpreter.math import FLOAT_BINARY, FLOAT_UNARY, MathFunctions
    from tirx_mlir.interpreter.tirx_functions import TirxFunctions

    tirx_ops = {op_type for op_type, _ in TirxFunctions._impls()}  # noqa: SLF001 - xdsl 0.74 API
    assert set(tile_ops.TILE_OPS) <= tirx_ops
    assert set(kernel.SCOPE_ID_OPS) <= tirx_ops
    math_ops = {op_type for op_type, _ in MathFunctions._impls()}  # noqa: SLF001
    assert set(FLOAT_UNARY) | set(FLOAT_BINARY) | {math.FmaOp, math.CtPopOp} <= math_ops
    for op_type in tile_ops.TILE_OPS:
        assert hasattr(TirxFunctions, f"run_{op_type.name.split('.')[1]}"), op_type.name
