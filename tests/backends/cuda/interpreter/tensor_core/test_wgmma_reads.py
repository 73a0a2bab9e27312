"""wgmma_reads.py: a write into the shared bytes of a wgmma group must be ordered after the
``wgmma.wait_group`` that retires it. The lowered sm_90a GEMM (a TMA ring feeding two consumer
warpgroups that keep one wgmma group in flight: ``wgmma.wait_group 1``, then the release of
the previous K step's stage) runs to numpy's answer; the same kernel hand-edited so that the
consumers release a stage before the wait that retires the wgmma reading it (the release moved
before the wait, or two groups left in flight) is a located ``[async]`` error at the producer's
TMA that refills the stage, naming the wgmma. Before wgmma_reads.py the interpreter accepted
such a kernel and gave numpy's answer (checked on main at 5ad1a23 with its lowering, which
waited with ``wgmma.wait_group 0``, the release moved before that wait): it computes a wgmma
when it issues, and its schedule retired the group before the producer refilled the stage."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf

from tirx_testing.cuda_every_stage import lower, run
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLE = Path(__file__).resolve().parents[5] / "examples" / "cuda" / "tile" / "gemm_sm90a.mlir"


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((256, 256)).astype(np.float16) for _ in range(2)]


def _ptx(module, row: str) -> list:
    return [op for op in module.walk() if isinstance(op, PtxOp) and op.name == f"ptx.{row}"]


def _kernel():
    return lower(EXAMPLE.read_text(), "gemm_sm90a")


def _expected(a, b):
    return a.astype(np.float32) @ b.astype(np.float32).T


def test_the_lowered_ring_runs_to_numpy():
    a, b = _inputs()
    (c,) = run(_kernel(), [a, b])
    np.testing.assert_allclose(c, _expected(a, b), rtol=1e-4, atol=1e-3)


def _consumer_block(module):
    """The consumers' K loop body (one wgmma group in flight: wgmma.wait_group 1) and that
    wait."""
    loop = next(op for op in module.walk()
                if isinstance(op, scf.ForOp) and _ptx(op, "wgmma_wait_group"))
    (wait,) = _ptx(loop, "wgmma_wait_group")
    assert wait.properties["n"].value.data == 1
    return wait.parent_block(), wait


def _arrive_before_wait(module) -> None:
    """Move the consumers' release of the previous K step's stage (every op after the
    accumulators are stored back: __syncwarp, the arrivals on the empty mbarriers) before the
    wgmma.wait_group 1 that retires that step's group."""
    block, wait = _consumer_block(module)
    ops = list(block.ops)
    last_store = max(i for i, op in enumerate(ops) if op.name == "cuda.store" and
                     op.operands[0].type.element_type.name == "f32")
    for op in ops[last_store + 1:-1]:
        op.detach()
        block.insert_op_before(op, wait)


def _two_groups_in_flight(module) -> None:
    """wgmma.wait_group 2 (two groups in flight) but the previous K step's stage released, as
    with one."""
    _, wait = _consumer_block(module)
    wait.properties["n"] = type(wait.properties["n"])(2, wait.properties["n"].type)


@pytest.mark.parametrize("edit", [_arrive_before_wait, _two_groups_in_flight])
def test_releasing_a_stage_before_its_wgmma_retires_is_a_located_error(edit):
    module = _kernel()
    edit(module)
    with pytest.raises(InterpretError) as err:
        run(module, list(_inputs()))
    text = str(err.value)
    assert "[async] ptx.cp_async_bulk_tensor_g2s: writes shared offset" in text
    gemm = next(i for i, line in enumerate(EXAMPLE.read_text().splitlines(), 1)
                if "tirx.gemm_async" in line)
    assert f"ptx.wgmma_mma_async_ss at gemm_sm90a:{gemm}:5" in text
    assert "may still be reading" in text and "threads 0-127" in text


def test_a_reinitialised_mbarrier_carries_no_earlier_knowledge():
    """An mbarrier initialised again at the same place starts at phase 0: what the phases of
    the earlier object carried is dropped (else a wait on the new one's phase 0 would take over
    retirements only the old one's arrivals knew), and the other barriers' are kept."""
    from types import SimpleNamespace

    from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma_reads

    reads = SimpleNamespace(phases={(0, 64): {0: np.array([3])}, (0, 72): {0: np.array([1])}})
    ctx = SimpleNamespace(state=SimpleNamespace(ext={wgmma_reads.KEY: reads}))
    wgmma_reads.on_init(ctx, (0, 64))
    assert reads.phases == {(0, 72): {0: np.array([1])}}
