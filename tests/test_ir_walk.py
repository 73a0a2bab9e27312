"""`tirx_mlir.ir_walk`: the same ops, in the same order, as xDSL's ``walk``; a snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, scf
from xdsl.ir import Block

from tirx_mlir.ir_walk import walk_ops, walk_region_ops
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline

TILE = Path(__file__).resolve().parents[1] / "examples" / "cuda" / "tile"

NESTED = """
func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %a = arith.addi %acc, %i : index
    %b = scf.for %j = %c0 to %i step %c1 iter_args(%x = %a) -> (index) {
      %m = arith.muli %x, %j : index
      scf.yield %m : index
    }
    %t = arith.cmpi slt, %b, %n : index
    %s = scf.if %t -> (index) {
      scf.yield %b : index
    } else {
      %d = arith.subi %b, %n : index
      scf.yield %d : index
    }
    scf.yield %s : index
  }
  func.return %r : index
}
"""


def test_nested_regions_in_walk_order():
    module = parse_module(NESTED, "nested.mlir", make_context())
    ops = walk_ops(module)
    assert ops == list(module.walk())
    assert [op.name for op in ops][:6] == ["builtin.module", "func.func", "arith.constant",
                                           "arith.constant", "scf.for", "arith.addi"]
    loop = next(op for op in ops if isinstance(op, scf.ForOp))
    assert walk_region_ops(loop.body) == list(loop.body.walk())
    assert walk_ops(loop)[1:] == walk_region_ops(loop.body)


def test_an_op_without_regions_is_itself():
    module = parse_module(NESTED, "nested.mlir", make_context())
    const = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    assert walk_ops(const) == [const]


def test_a_snapshot_not_changed_by_later_erasures():
    module = parse_module(NESTED, "nested.mlir", make_context())
    ops = walk_ops(module)
    sub = next(op for op in ops if isinstance(op, arith.SubiOp))
    sub.results[0].replace_all_uses_with(sub.lhs)
    sub.detach()
    assert sub in ops and sub not in walk_ops(module)
    assert walk_ops(module) == list(module.walk())


@pytest.mark.parametrize("example", ["gemm_sm80", "softmax_registers", "flash_attention_sm90a"])
def test_lowered_kernels(example):
    path = TILE / f"{example}.mlir"
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    assert walk_ops(module) == list(module.walk())
    get_pipeline("cuda").apply(module, ctx)
    ops = walk_ops(module)
    assert ops == list(module.walk()) and len(ops) > 200


def test_a_region_of_several_blocks_is_found_at_any_depth():
    from xdsl.dialects.cf import Cf

    from tirx_mlir.ir_walk import has_multi_block_region

    ctx = make_context()
    ctx.load_dialect(Cf)
    branches = parse_module("""func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %x = arith.constant 1 : i32
  func.return %x : i32
^b:
  %y = arith.constant 2 : i32
  func.return %y : i32
}""", "branches.mlir", ctx)
    assert has_multi_block_region(branches)
    nested = parse_module(NESTED, "nested.mlir", make_context())
    assert not has_multi_block_region(nested)
    inner = [op for op in walk_ops(nested) if isinstance(op, scf.ForOp)][1]
    inner.body.add_block(Block())  # an empty second block in the inner loop, three levels down
    assert has_multi_block_region(nested)
