"""`FastCSEPass` gives the IR xDSL's `CommonSubexpressionElimination` gives: on some cuda tile
examples and some trn ones, at every point where the cuda or trn pipeline runs ``cse``, the two
run on copies of the same module and must print the same text; and the small cases of what CSE
must and must not merge."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from tirx_mlir import registry
from tirx_mlir.located_parser import make_context
from tirx_mlir.transforms.cse import FastCSEPass
from tirx_testing.same_as_xdsl import checked_points

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CUDA_KERNELS = ("bias_silu", "layernorm", "reduce_2d", "softmax", "gemm_sm90a")
"""A few of examples/cuda/tile (gemm_sm80 and the attention ones take long here)."""


@pytest.mark.parametrize("kernel", CUDA_KERNELS)
def test_same_ir_as_xdsl_cse_in_the_cuda_pipeline(kernel):
    seen, changed = checked_points(EXAMPLES / "cuda" / "tile" / f"{kernel}.mlir", "cuda",
                                   FastCSEPass, CommonSubexpressionElimination)
    assert seen > 0 and changed > 0


@pytest.mark.parametrize("path", sorted((EXAMPLES / "trn").glob("*.mlir"))[:4],
                         ids=lambda p: p.stem)
def test_same_ir_as_xdsl_cse_in_the_trn_pipeline(path):
    seen, _ = checked_points(path, "trn", FastCSEPass, CommonSubexpressionElimination)
    assert seen > 0


def _function(body_ops, result_types=()) -> builtin.ModuleOp:
    f = func.FuncOp.from_region("f", [], list(result_types),
                                builtin.Region(builtin.Block(body_ops)))
    return builtin.ModuleOp([f])


def test_merges_pure_duplicates_and_keeps_distinct_ops():
    i32 = builtin.i32
    c1, c2 = arith.ConstantOp.from_int_and_width(1, 32), arith.ConstantOp.from_int_and_width(1, 32)
    c3 = arith.ConstantOp.from_int_and_width(3, 32)
    a, b = arith.AddiOp(c1, c3), arith.AddiOp(c2, c3)          # equal once c2 is c1
    nsw = arith.AddiOp(c1, c3, overflow=arith.IntegerOverflowFlag.NSW)  # other properties
    m = arith.MuliOp(c1, c3)                                     # other name
    module = _function([c1, c2, c3, a, b, nsw, m, func.ReturnOp(a, b, nsw, m)], [i32] * 4)
    FastCSEPass().apply(make_context(), module)
    ops = list(module.body.block.ops.first.body.block.ops)
    assert sum(isinstance(o, arith.ConstantOp) for o in ops) == 2
    ret = ops[-1]
    assert ret.operands[0] is ret.operands[1] and ret.operands[2] is not ret.operands[0]
    assert sum(isinstance(o, arith.AddiOp) for o in ops) == 2 and m in ops


def test_reads_merge_only_without_a_write_between():
    ref = builtin.MemRefType(builtin.i32, [4])
    buf = memref.AllocOp.get(builtin.i32, shape=[4])
    i = arith.ConstantOp.from_int_and_width(0, builtin.IndexType())
    l1, l2 = memref.LoadOp.get(buf, [i]), memref.LoadOp.get(buf, [i])
    store = memref.StoreOp.get(l1, buf, [i])
    l3 = memref.LoadOp.get(buf, [i])
    module = _function([buf, i, l1, l2, store, l3, func.ReturnOp(l1, l2, l3)],
                       [builtin.i32] * 3)
    assert buf.memref.type == ref
    FastCSEPass().apply(make_context(), module)
    ret = list(module.body.block.ops.first.body.block.ops)[-1]
    assert ret.operands[0] is ret.operands[1]       # no write between l1 and l2
    assert ret.operands[2] is not ret.operands[0]   # the store comes between l1 and l3


def test_inner_scope_sees_outer_ops_but_not_the_reverse():
    idx = builtin.IndexType()
    lo, hi, st = (arith.ConstantOp.from_int_and_width(v, idx) for v in (0, 4, 1))
    outer = arith.AddiOp(hi, st)
    body = builtin.Block(arg_types=[idx])
    inner_dup, inner_new = arith.AddiOp(hi, st), arith.MuliOp(hi, st)
    body.add_ops([inner_dup, inner_new, scf.YieldOp()])
    loop = scf.ForOp(lo, hi, st, [], builtin.Region(body))
    after = arith.MuliOp(hi, st)
    module = _function([lo, hi, st, outer, loop, after, func.ReturnOp(outer, after)], [idx] * 2)
    user = arith.AddiOp(inner_dup, inner_new)
    body.insert_op_before(user, body.last_op)
    FastCSEPass().apply(make_context(), module)
    assert user.lhs is outer.result                  # the loop's duplicate of an outer op merged
    assert after.parent is not None                  # the loop's op is not visible after it


def test_registered_as_cse():
    assert registry.passes.lookup("cse")() is FastCSEPass


def test_reports_each_removed_op_once_with_its_block_and_users():
    """The report (`tirx_mlir.changes`): a replaced op names its block and the users whose
    operands it redirects, once (not again when it is erased after the walk); an op erased as
    dead names its block."""
    from tirx_mlir.changes import ChangeLog, reporting_to

    i32 = builtin.i32
    c1, c2 = arith.ConstantOp.from_int_and_width(1, 32), arith.ConstantOp.from_int_and_width(1, 32)
    use = arith.AddiOp(c2, c2)
    dead = arith.MuliOp(c1, c1)  # no uses: erased as dead
    ret = func.ReturnOp(use)
    module = _function([c1, c2, use, dead, ret], [i32])
    block = ret.parent
    with reporting_to(ChangeLog()) as log:
        FastCSEPass().apply(make_context(), module)
    assert c2.parent is None and dead.parent is None and tuple(use.operands) == (c1.result, c1.result)
    assert log.blocks == [block, block]  # c2 (replaced), then the dead product
    assert log.users == [use, use]  # c2's two uses, by `use`
