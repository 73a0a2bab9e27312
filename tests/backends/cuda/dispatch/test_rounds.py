"""dispatch/rounds.py: which access groups roll into loops, and the loops it builds."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dispatch.rounds import Loop, roll
from tirx_mlir.backends.cuda.layout.defaults import spread_layout
from tirx_mlir.backends.cuda.layout.partition import RegisterPartition
from tirx_mlir.backends.cuda.loop_hints import is_unroll


def _groups(part: RegisterPartition, vec: int) -> list[list[int]]:
    slots = part.registers()
    return [slots[s:s + vec] for s in range(0, len(slots), vec)]


def test_spread_rounds_are_one_loop():
    """TIRx's [outer, threads, vec] spread of 32x256 over 128 threads: 16 rounds of 2 rows."""
    part = RegisterPartition(spread_layout((32, 256), "tx", 128, 4), (32, 256))
    rounds = roll(_groups(part, 4), part.reg_coords)
    assert rounds is not None
    assert rounds.loops == (Loop(16, (2, 0)),)
    assert rounds.offsets == ((0, 0), (0, 1), (0, 2), (0, 3))


def test_rounds_that_wrap_a_dim_are_nested_loops():
    coords = {r: (r // 3, 10 * (r % 3)) for r in range(12)}  # 4 rows x 3 columns 10 apart
    rounds = roll([[r] for r in range(12)], coords.__getitem__)
    assert rounds is not None
    assert rounds.loops == (Loop(3, (0, 10)), Loop(4, (1, 0)))


def test_irregular_rounds_stay_unrolled():
    steps = {0: (0,), 1: (1,), 2: (3,), 3: (7,)}  # no constant step, no mixed radix
    assert roll([[r] for r in range(4)], steps.__getitem__) is None
    skewed = {0: (0, 0), 1: (0, 1), 2: (1, 0), 3: (1, 2)}  # the second group's shape differs
    assert roll([[0, 1], [2, 3]], skewed.__getitem__) is None
    assert roll([[0, 1]], skewed.__getitem__) is None  # one group: nothing to roll
    assert roll([[0], [1, 2]], skewed.__getitem__) is None


def test_emit_builds_the_nest_with_the_unroll_hint():
    coords = {r: (r // 3, 10 * (r % 3)) for r in range(12)}
    rounds = roll([[r] for r in range(12)], coords.__getitem__)
    block = Block()
    inner, coord = rounds.emit(Builder(InsertPoint.at_end(block)))
    outer = block.last_op
    assert isinstance(outer, scf.ForOp) and is_unroll(outer)
    nested = [op for op in outer.body.block.ops if isinstance(op, scf.ForOp)]
    assert len(nested) == 1 and is_unroll(nested[0])
    # row from the outer induction variable, column 10 x the inner one
    assert dict(coord[0].terms) == {outer.body.block.args[0]: 1}
    assert dict(coord[1].terms) == {nested[0].body.block.args[0]: 10}
