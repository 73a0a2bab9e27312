"""cuda-split-roles: the K loop of gemm_sm90a (one wgmma group in flight) becomes one loop per
role inside ``if consumer {...} else {...}``, the drain after the consumers' loop, with numpy's
answer; a tagged loop holding anything else at its top level is left whole and untagged. The
flash-attention ring loop (register code between its GEMMs) splits the same way, unless its
register code holds a barrier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import scf

from tirx_testing.cuda_every_stage import lower, run
from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dispatch.wgmma_in_flight import ROLE, SPLIT
from tirx_mlir.backends.cuda.transforms.split_roles import CudaSplitRolesPass
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / "gemm_sm90a.mlir"


def _before_split():
    """gemm_sm90a after the passes before cuda-split-roles."""
    shots = get_pipeline("cuda").snapshots(parse_module(EXAMPLE.read_text(), "gemm_sm90a"))
    names = [name for name, _ in shots]
    return shots[names.index("cuda-split-roles") - 1][1]


def _names(op) -> set[str]:
    return {o.name for o in op.walk()}


def _inputs():
    rng = np.random.default_rng(3)
    return [rng.standard_normal((256, 256)).astype(np.float16) for _ in range(2)]


def test_the_k_loop_splits_by_role():
    module = _before_split()
    tagged = [op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes]
    assert len(tagged) == 1
    CudaSplitRolesPass().apply(Context(), module)
    module.verify()
    assert not any(SPLIT in op.attributes for op in module.walk())
    split = next(op for op in module.walk() if isinstance(op, scf.IfOp) and
                 op.false_region.blocks and any(isinstance(o, scf.ForOp) for o in op.walk()))
    then_ops = list(split.true_region.block.ops)
    (mine,) = [o for o in then_ops if isinstance(o, scf.ForOp)]
    (theirs,) = [o for o in split.false_region.block.ops if isinstance(o, scf.ForOp)]
    assert "ptx.wgmma_mma_async_ss" in _names(mine) and \
        "ptx.cp_async_bulk_tensor_g2s" not in _names(mine)
    assert "ptx.cp_async_bulk_tensor_g2s" in _names(theirs) and \
        "ptx.wgmma_mma_async_ss" not in _names(theirs)
    # the consumers' code is no longer guarded in their loop: the wgmmas are at its top level
    assert any(o.name == "ptx.wgmma_mma_async_ss" for o in mine.body.block.ops)
    # the drain follows the consumers' loop in their branch
    after = then_ops[then_ops.index(mine) + 1:]
    waits = [o for o in after if o.name == "ptx.wgmma_wait_group"]
    assert [w.properties["n"].value.data for w in waits] == [0]
    a, b = _inputs()
    (c,) = run(module, [a, b])
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-4,
                               atol=1e-3)


def test_a_loop_with_other_code_is_left_whole():
    module = _before_split()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes)
    loop.body.block.insert_op_before(cuda.SyncThreadsOp(), loop.body.block.first_op)
    before = len([op for op in module.walk() if isinstance(op, scf.ForOp)])
    CudaSplitRolesPass().apply(Context(), module)
    module.verify()
    assert SPLIT not in loop.attributes and loop.parent_op() is not None
    assert len([op for op in module.walk() if isinstance(op, scf.ForOp)]) == before
    assert not any(ROLE in op.attributes for op in module.walk())


def test_dispatch_keeps_no_group_in_flight_in_a_loop_the_split_would_refuse():
    """A K loop that also loads from global memory (an op with effects, which the split cannot
    move into both roles' loops) keeps ``wait_group 0``: dispatch and the split share one test
    of what such a loop may hold (tma_ring.pure_loop_op), so no group is left in flight across
    the consumers' per-iteration ``scf.if`` (ptxas's C7518) and no role tag is left behind."""
    text = EXAMPLE.read_text()
    gemm = "    tirx.gemm_async"
    assert text.count(gemm) == 1
    text = text.replace(gemm, "    %x = tirx.load %A[%c0, %c0] : !tirx.buffer<256x256xf16, global>\n"
                        + gemm)
    module = lower(text, "gemm_sm90a")
    waits = [op.properties["n"].value.data for op in module.walk()
             if op.name == "ptx.wgmma_wait_group"]
    assert waits and set(waits) == {0}
    assert not any(ROLE in op.attributes or SPLIT in op.attributes for op in module.walk())


def _tagged_loop_and_drain(module):
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes)
    drain = loop.next_op
    while not isinstance(drain, scf.IfOp):
        drain = drain.next_op
    return loop, drain


def test_the_drains_condition_recomputed_the_same_way_is_the_consumers():
    """Dispatch computes the drain's condition again after the loop (cse has not run yet): the
    same ops over the same values count as the consumers' condition."""
    module = _before_split()
    loop, drain = _tagged_loop_and_drain(module)
    consumer = next(op for op in loop.body.block.ops if isinstance(op, scf.IfOp) and
                    op.attributes.get(ROLE) is not None and op.attributes[ROLE].data == "consumer")
    assert drain.cond is not consumer.cond  # two computations: the equality is structural
    CudaSplitRolesPass().apply(Context(), module)
    assert loop.parent_op() is None  # replaced by the split


def test_a_drain_under_another_condition_is_not_moved_into_the_consumers_branch():
    """The split runs the drain in the consumers' branch; a drain guarded by anything else (here
    the producer's condition) would then run on the wrong threads, so the loop stays whole."""
    module = _before_split()
    loop, drain = _tagged_loop_and_drain(module)
    producer = next(op for op in loop.body.block.ops if isinstance(op, scf.IfOp) and
                    ROLE not in op.attributes)
    drain.operands = [producer.cond]
    CudaSplitRolesPass().apply(Context(), module)
    module.verify()
    assert loop.parent_op() is not None and SPLIT not in loop.attributes
    assert not any(ROLE in op.attributes for op in module.walk())


def test_one_value_needs_equal_result_types():
    """x and y truncated to i8 or to i16 compare differently (x = 256, y = 0): two conditions
    built the same way over different widths are not one condition."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerType
    from xdsl.ir import Block

    from tirx_mlir.backends.cuda.transforms.split_roles import _same_value

    block = Block(arg_types=[IntegerType(32), IntegerType(32)])
    x, y = block.args
    narrow = [arith.TruncIOp(v, IntegerType(8)) for v in (x, y)]
    wide = [arith.TruncIOp(v, IntegerType(16)) for v in (x, y)]
    again = [arith.TruncIOp(v, IntegerType(8)) for v in (x, y)]
    compares = [arith.CmpiOp(a, b, "eq") for a, b in (narrow, wide, again)]
    block.add_ops([*narrow, *wide, *again, *compares])
    assert not _same_value(compares[0].result, compares[1].result)
    assert _same_value(compares[0].result, compares[2].result)


RING_FA = EXAMPLE.parent / "flash_attention_ring_sm90a.mlir"


def _fa_before_split():
    """flash_attention_ring_sm90a after the passes before cuda-split-roles."""
    shots = get_pipeline("cuda").snapshots(parse_module(RING_FA.read_text(),
                                                        "flash_attention_ring_sm90a"))
    names = [name for name, _ in shots]
    return shots[names.index("cuda-split-roles") - 1][1]


def test_a_ring_loop_of_register_code_splits_with_its_drain():
    """The flash-attention loop (dispatch/ring_loop_roles.py): producer-tagged TMA blocks,
    two consumer GEMM blocks, the softmax's register code between them and P V's drain after
    the loop: the consumers' loop keeps the softmax, the producer's only its copies."""
    from tirx_mlir.backends.cuda.transforms.split_roles import register_code

    module = _fa_before_split()
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes]
    registers = [op for op in loop.body.block.ops if ROLE not in op.attributes and
                 op.name == "scf.for"]
    assert registers and all(register_code(op) for op in registers)
    CudaSplitRolesPass().apply(Context(), module)
    module.verify()
    split = next(op for op in module.walk() if isinstance(op, scf.IfOp) and
                 op.false_region.blocks and any(isinstance(o, scf.ForOp) for o in op.walk()))
    (mine,) = [o for o in split.true_region.block.ops if isinstance(o, scf.ForOp)]
    (theirs,) = [o for o in split.false_region.block.ops if isinstance(o, scf.ForOp)]
    assert "cuda.shfl_sync" in _names(mine) and "cuda.shfl_sync" not in _names(theirs)
    assert "ptx.cp_async_bulk_tensor_g2s" in _names(theirs)
    assert "ptx.wgmma_wait_group" in {o.name for o in split.true_region.block.ops}  # drain
    assert not any(ROLE in op.attributes for op in module.walk())


def test_a_ring_loop_whose_register_code_holds_a_barrier_is_left_whole():
    """A __syncthreads among the consumers' code: the producer must reach it too, so the loop
    stays whole (correct, unsplit) and untagged."""
    module = _fa_before_split()
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes]
    last = list(loop.body.block.ops)[-1]
    loop.body.block.insert_op_before(cuda.SyncThreadsOp(), last)
    before = len([op for op in module.walk() if isinstance(op, scf.ForOp)])
    CudaSplitRolesPass().apply(Context(), module)
    module.verify()
    assert SPLIT not in loop.attributes and loop.parent_op() is not None
    assert len([op for op in module.walk() if isinstance(op, scf.ForOp)]) == before
    assert not any(ROLE in op.attributes for op in module.walk())
