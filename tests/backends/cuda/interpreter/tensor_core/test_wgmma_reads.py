"""wgmma_reads.py: a write into the shared bytes of a wgmma group must be ordered after the
``wgmma.wait_group`` that retires it. The lowered sm_90a GEMM (a TMA ring feeding two consumer
warpgroups) runs to numpy's answer; the same kernel hand-edited so that the consumers release
a ring stage (arrive on its empty mbarrier) before the wait that retires the wgmma reading it
is a located ``[async]`` error at the producer's TMA that refills the stage, naming the wgmma,
and so is one that waits with ``wgmma.wait_group 1`` (one group in flight) but releases the
stage of the group still in flight. Before wgmma_reads.py the interpreter accepted the first
(arrive before wait) and gave numpy's answer (checked on main at 5ad1a23): it computes a wgmma
when it issues, and its lockstep schedule retires the group before the producer refills the
stage; the second it refused only for storing an accumulator still in flight back into its
register tile, which local_arrays.py now allows."""

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
    """The K loop's consumer block (the scf.if holding the wgmmas) and its wait_group."""
    loop = next(op for op in module.walk()
                if isinstance(op, scf.ForOp) and _ptx(op, "wgmma_wait_group"))
    wait = _ptx(loop, "wgmma_wait_group")[-1]
    return wait.parent_block(), wait


def _arrive_before_wait(module) -> None:
    """Move the consumers' release of the stage (every op after the accumulators are stored
    back: __syncwarp, the arrivals on the empty mbarriers) before the wgmma.wait_group."""
    block, wait = _consumer_block(module)
    ops = list(block.ops)
    last_store = max(i for i, op in enumerate(ops) if op.name == "cuda.store")
    for op in ops[last_store + 1:-1]:
        op.detach()
        block.insert_op_before(op, wait)


def _wait_one_release_current(module) -> None:
    """wgmma.wait_group 1 (one group in flight) but the stage of this K step released."""
    _, wait = _consumer_block(module)
    wait.properties["n"] = type(wait.properties["n"])(1, wait.properties["n"].type)


@pytest.mark.parametrize("edit", [_arrive_before_wait, _wait_one_release_current])
def test_releasing_a_stage_before_its_wgmma_retires_is_a_located_error(edit):
    module = _kernel()
    edit(module)
    with pytest.raises(InterpretError) as err:
        run(module, list(_inputs()))
    text = str(err.value)
    assert "[async] ptx.cp_async_bulk_tensor_g2s: writes shared offset" in text
    assert "ptx.wgmma_mma_async_ss at gemm_sm90a:57:5" in text
    assert "may still be reading" in text and "threads 0-127" in text
