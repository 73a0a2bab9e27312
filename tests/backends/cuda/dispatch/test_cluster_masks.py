"""cluster_masks: a cta_mask's groups (an integer for every CTA, one mask per rank), each CTA's
position in its group, the cluster dims a group spans; the masks refused and why; values
picked by the rank (a constant when every rank has the same, else selects on rank bit sets),
checked by running the built IR on the SIMT interpreter for every rank of a 2x2 cluster."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i64

from tirx_mlir.backends.cuda.dispatch.cluster_masks import Groups, cluster_groups
from tirx_mlir.dispatch.registry import DispatchFail


def _array(*masks: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(masks))


def test_rows_and_columns_of_a_2x2_cluster():
    rows = cluster_groups(_array(3, 3, 12, 12), (2, 2))
    assert rows.size == 2 and [rows.member(r) for r in range(4)] == [0, 1, 0, 1]
    assert rows.varying_dims((2, 2)) == {0}  # a row spans x
    cols = cluster_groups(_array(5, 10, 5, 10), (2, 2))
    assert [cols.member(r) for r in range(4)] == [0, 0, 1, 1]
    assert cols.varying_dims((2, 2)) == {1}
    assert cols.ranks_where(lambda r: cols.member(r) == 1) == 0b1100


def test_an_integer_mask_is_every_cta_s():
    whole = cluster_groups(IntegerAttr(15, i64), (4,))
    assert whole == Groups((15, 15, 15, 15)) and whole.varying_dims((4,)) == {0}


@pytest.mark.parametrize("value, cluster, reason", [
    (IntegerAttr(3, i64), (2, 2), "rank 2 is not in its own cta_mask 0b11"),
    (IntegerAttr(7, i64), (2,), "names CTAs outside the cluster of 2"),
    (_array(3, 3), (2, 2), "lists 2 masks; the cluster has 4 CTAs"),
    (_array(3, 6, 12, 12), (2, 2), "rank 0 multicasts to rank 1"),
    (_array(1, 14, 14, 14), (2, 2), "groups of 1 and 3 CTAs"),
    (StringAttr("rows"), (2,), "must be an integer"),
    (IntegerAttr(1, i64), (4, 4, 2), "a cta_mask holds 16 CTAs; the cluster has 32"),
])
def test_masks_that_cannot_work(value, cluster, reason):
    with pytest.raises(DispatchFail, match=reason):
        cluster_groups(value, cluster)


def _by_rank_kernel(values: tuple[int, ...]):
    """A 2x2-cluster kernel whose thread 0 stores ``by_rank(values)`` and whether its rank is
    in 0b0110 (`rank_in`) to Out[rank]."""
    from xdsl.builder import Builder
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, i32
    from xdsl.rewriter import InsertPoint

    from tirx_mlir.backends.cuda.dialects import cuda
    from tirx_mlir.backends.cuda.dispatch import cluster_masks
    from tirx_mlir.located_parser import parse_module

    module = parse_module(
        'tirx.kernel @k() -> (%Out: !tirx.buffer<8xi32, global>) grid [2, 2] threads [1] '
        'cluster [2, 2] target "cuda -arch=sm_90a" {\n  tirx.return\n}\n', "k")
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    out = kernel.body.block.args[0]
    b = Builder(InsertPoint.before(kernel.body.block.last_op))
    value = cluster_masks.by_rank(b, values, i32)
    inside = cluster_masks.rank_in(b, 0b0110, 4)
    flag = b.insert(arith.ExtUIOp(inside, i32)).result
    rank = cluster_masks.rank(b)
    two = b.insert(arith.ConstantOp(IntegerAttr(2, IndexType()))).result
    at = b.insert(arith.MuliOp(rank, two)).result
    one = b.insert(arith.ConstantOp(IntegerAttr(1, IndexType()))).result
    at1 = b.insert(arith.AddiOp(at, one)).result
    b.insert(cuda.StoreOp.build(operands=[out, at, value]))
    b.insert(cuda.StoreOp.build(operands=[out, at1, flag]))
    return module


@pytest.mark.parametrize("values", [(3, 3, 12, 12), (5, 10, 5, 10), (7, 7, 7, 7), (1, 2, 4, 8)])
def test_by_rank_and_rank_in_give_each_rank_its_value(values):
    from tirx_mlir.backends.cuda.interpreter import simulate

    module = _by_rank_kernel(values)
    selects = [op for op in module.walk() if op.name == "arith.select"]
    assert len(selects) == len(set(values)) - 1  # a constant when every rank has the same
    (out,) = simulate(module, None).outputs
    np.testing.assert_array_equal(out.reshape(4, 2), [[v, int(r in (1, 2))]
                                                      for r, v in enumerate(values)])
