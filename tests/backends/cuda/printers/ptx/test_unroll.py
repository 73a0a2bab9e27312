"""printers/ptx/unroll.py: loops over a thread's local array expanded at print time, their
index arithmetic folded to constants; a loop that cannot be expanded is a located error."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.printers.ptx.unroll import (copy_op, copy_tree, expand_register_loops,
                                                          needs_expansion)
from tirx_mlir.diagnostics import op_location
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

load("cuda")
PTXAS = toolchain.find_tool("ptxas")
STRICT = ("-v", "--warning-as-error", "--warn-on-local-memory-usage", "--warn-on-spills")

# 4 rounds of 2 registers each: acc[2 i + 1] += X[t * 8 + 2 i], the round's index on i32
# (as cuda-narrow-index leaves it); a carried sum of the rounds' values.
ROUNDS = """
tirx.kernel @rounds(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<128xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = arith.constant UB : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %zero = arith.constant 0.0 : f32
  %t = cuda.thread_idx x : index
  %base = arith.muli %t, %c8 : index
  %acc = tirx.alloc : !tirx.buffer<8xf32, local>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %i32 = arith.index_cast %i : index to i32
    %even = arith.muli %i32, %two overflow<nsw> : i32
    %odd = arith.addi %even, %one overflow<nsw> : i32
    %k = arith.index_cast %odd : i32 to index
    %e = arith.index_cast %even : i32 to index
    %g = arith.addi %base, %e : index
    %x = cuda.load %X, %g : !tirx.buffer<1024xf32, global>, index -> f32
    cuda.store %acc, %k, %x : !tirx.buffer<8xf32, local>, index, f32
    %v = cuda.load %acc, %k : !tirx.buffer<8xf32, local>, index -> f32
    %s2 = arith.addf %s, %v : f32
    scf.yield %s2 : f32
  } {cuda.unroll}
  cuda.store %Y, %t, %sum : !tirx.buffer<128xf32, global>, index, f32
  tirx.return
}
"""


def _module(ub: str = "4"):
    return parse_module(ROUNDS.replace("UB", ub), "rounds.mlir")


def _fail(message, op):
    return PrintError(message, op, code="ptx-print")


def test_a_loop_indexing_a_local_array_is_expanded_with_constant_indices():
    module = _module()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert needs_expansion(loop)
    expanded = expand_register_loops(module, _fail)
    assert not any(isinstance(op, scf.ForOp) for op in expanded.walk())
    local = [op for op in expanded.walk() if isinstance(op, (LoadOp, StoreOp)) and
             op.memory.type.scope_name == "local"]
    assert [checks.constant_index(op.index) for op in local] == [1, 1, 3, 3, 5, 5, 7, 7]
    # the input is not changed: the printer expands a copy
    assert any(isinstance(op, scf.ForOp) for op in module.walk())


def test_index_arithmetic_folds_and_constant_adds_reassociate():
    expanded = expand_register_loops(_module(), _fail)
    # the global index base + 2 i: one add per round of base and a constant, never a chain
    adds = [op for op in expanded.walk() if isinstance(op, arith.AddiOp)]
    assert len(adds) == 3  # base + 2, base + 4, base + 6 (round 0 is base itself)
    assert sorted(checks.constant_index(a.rhs) for a in adds) == [2, 4, 6]
    # the expansion (placed where the loop was, after the alloc) makes each constant once
    ops = list(next(op for op in expanded.walk() if op.name == "tirx.kernel").body.block.ops)
    made = [(op.value, op.result.type) for op in ops[[o.name for o in ops].index("tirx.alloc"):]
            if isinstance(op, arith.ConstantOp)]
    assert len(made) == len(set(made)) > 4


def test_the_expanded_loop_prints_registers_and_assembles_without_local_memory():
    ptx = emit_ptx(_module())
    assert ".reg .f32 %acc_<8>;" in ptx
    assert ".local" not in ptx and "bra" not in ptx  # no loop left, no local array
    assert ptx.count("add.rn.f32") == 4  # the carried sum, once per round
    if PTXAS is not None:
        result = toolchain.assemble(ptx, "sm_80", ptxas=PTXAS, extra=STRICT)
        assert result.ok, result.log


def test_a_loop_over_memory_only_stays_a_loop():
    text = ROUNDS.replace("UB", "4").replace(
        "cuda.store %acc, %k, %x : !tirx.buffer<8xf32, local>, index, f32\n"
        "    %v = cuda.load %acc, %k : !tirx.buffer<8xf32, local>, index -> f32",
        "%v = arith.addf %x, %x : f32")
    module = parse_module(text, "memory.mlir")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert not needs_expansion(loop)
    assert expand_register_loops(module, _fail) is module
    assert "bra.uni" in emit_ptx(module)


def test_a_loop_without_constant_bounds_is_refused_at_the_loop():
    text = ROUNDS.replace("%n = arith.constant UB : index", "").replace(
        "%base = arith.muli %t, %c8 : index",
        "%base = arith.muli %t, %c8 : index\n  %n = arith.remui %t, %c8 : index")
    with pytest.raises(PrintError) as err:
        emit_ptx(parse_module(text, "dynamic.mlir"))
    message = err.value.render()
    assert "must be unrolled" in message and "not constants" in message
    assert isinstance(err.value.op, scf.ForOp)
    name, line, _ = op_location(err.value.op)
    assert name == "dynamic.mlir" and "scf.for" in text.splitlines()[line - 1]


def test_a_loop_with_too_many_iterations_is_refused():
    with pytest.raises(PrintError, match="2000 iterations"):
        expand_register_loops(_module("2000"), _fail)


def _uses(module) -> list[int]:
    return [value.uses.get_length() for op in module.walk()
            for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args))]


def test_the_fast_copy_of_a_module_is_what_xdsl_clone_makes():
    """The expander's `copy_tree` (fields set directly) against xDSL's ``clone``: the same
    text (names, properties, attributes, locations), the same use counts (the printer reads
    them), equal ops everywhere, and the original keeps its uses."""
    module = _module()
    before = _uses(module)
    copies: dict = {}
    fast = copy_tree(module, {}, copies)
    slow = module.clone()
    fast.verify()
    assert str(fast) == str(slow) == str(module)
    assert fast.is_structurally_equivalent(slow)
    assert _uses(fast) == _uses(slow) == before == _uses(module)
    assert len(copies) == sum(1 for _ in module.walk())
    assert all(copies[old].name == old.name and copies[old] is not old and
               copies[old].location == old.location for old in module.walk())
    # a copy reads copies: no operand of the copy is a value of the original
    originals = {v for op in module.walk() for v in op.results} | \
        {a for op in module.walk() for r in op.regions for b in r.blocks for a in b.args}
    assert not any(v in originals for op in fast.walk() for v in op.operands)


def test_a_copied_op_has_fresh_results_and_registers_its_uses():
    module = _module()
    add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    uses = [v.uses.get_length() for v in add.operands]
    copy = copy_op(add, list(add.operands))
    assert type(copy) is type(add) and copy.properties == add.properties
    assert copy.result is not add.result and copy.result.type == add.result.type
    assert copy.result.name_hint == add.result.name_hint and copy.parent is None
    assert [v.uses.get_length() for v in add.operands] == [n + 1 for n in uses]
    copy.erase()
    assert [v.uses.get_length() for v in add.operands] == uses


def test_the_fast_copy_maps_the_operands_of_an_op_with_successors():
    """An op with successors is copied by xDSL's ``clone``, its operands mapped through the
    expander's id-keyed values: the copy reads the copies, as xDSL's ``clone`` of the
    whole region does (the branch's blocks are the original's, as before)."""
    from xdsl.context import Context
    from xdsl.dialects import builtin, cf, func
    from xdsl.parser import Parser

    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, cf.Cf, arith.Arith):
        ctx.load_dialect(dialect)
    module = Parser(ctx, """
func.func @f(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  cf.br ^next(%b : i32)
^next(%c: i32):
  func.return %c : i32
}""").parse_module()
    values: dict = {}
    copy = copy_tree(module, values, {})
    branch = next(op for op in copy.walk() if isinstance(op, cf.BranchOp))
    add = next(op for op in copy.walk() if isinstance(op, arith.AddiOp))
    assert branch.operands[0] is add.result
    original_add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    assert values[id(original_add.result)] is add.result
    assert original_add.result.uses.get_length() == 1


def test_a_placed_constant_is_what_arith_constant_makes():
    """`Expander.new_constant` copies one constant per type object and sets its value: the
    same op as `arith_constant` (class, properties, attributes, location, result type)."""
    from xdsl.dialects.builtin import IndexType, IntegerType

    from tirx_mlir.backends.cuda.printers.ptx.unroll import Expander
    from tirx_mlir.dialects.tirx.op_build import arith_constant

    expander = Expander(_fail)
    i32, index = IntegerType(32), IndexType()
    for value, t in ((5, i32), (-3, i32), (7, index), (5, i32)):
        made, expected = expander.new_constant(value, t), arith_constant(value, t)
        assert type(made) is type(expected) and made.properties == expected.properties
        assert made.attributes == expected.attributes and made.location == expected.location
        assert made.result.type is t and made.result.name_hint is None
        assert str(made) == str(expected)
    assert len(expander.templates) == 2


def test_a_discarded_copy_gives_back_its_operands_uses():
    from tirx_mlir.backends.cuda.printers.ptx.unroll import _discard

    module = _module()
    add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    uses = [v.uses.get_length() for v in add.operands]
    copy = copy_op(add, list(add.operands))
    _discard(copy)
    assert [v.uses.get_length() for v in add.operands] == uses
    used = copy_op(add, list(add.operands))  # a used result: erased as xDSL does
    user = copy_op(add, [used.result, used.result])
    _discard(used)
    assert [v.uses.get_length() for v in add.operands] == uses
    assert all(type(v).__name__ == "ErasedSSAValue" for v in user.operands)
