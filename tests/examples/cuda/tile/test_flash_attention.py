"""examples/cuda/tile/flash_attention_sm{80,90a}.mlir and flash_attention_ring_sm90a.mlir:
FlashAttention-2's forward loop on sm_80 (mma.sync for Q K^T and P V), sm_90a (wgmma) and
sm_90a pipelined (K and V in TMA rings, a producer warpgroup, P V in flight while the next S is
issued), row statistics in the lanes that hold a row. A 2-CTA, 2-KV-block version of each (the
ring: 3 KV blocks, so a stage is refilled) is checked at every stage of the cuda pipeline (numpy
== tile interpreter == SIMT after each pass) and compiled for its arch (no spills, no
advisories); the examples' own size runs once through the SIMT interpreter (the ring's with its
race check)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tirx_testing.cuda_every_stage import check_every_stage, lower

from xdsl.dialects import scf

from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.interpreter import KernelRunner

TILE = Path(__file__).parents[4] / "examples" / "cuda" / "tile"
ARCHS = {"sm_80": ('ptx.mma_sync "m16n8k16.f32.f16.f16.f32"', 64),
         "sm_90a": ("ptx.wgmma_mma_async", 8),
         "sm_90a_ring": ("ptx.wgmma_mma_async", 8)}
"""generator arch -> (the tensor-core op, how many per KV block and CTA in the lowered kernel:
mma.sync per warp 4 k-steps x 8 n-tiles for each of Q K^T and P V; wgmma m64n64k16 4 k-steps
each; the KV loop is not unrolled)."""
LENGTHS = {"sm_80": 128, "sm_90a": 128, "sm_90a_ring": 192}
"""The sequence length of the every-stage check: 2 KV blocks, 3 for the 2-stage ring."""


def example(arch: str) -> Path:
    if arch == "sm_90a_ring":
        return TILE / "flash_attention_ring_sm90a.mlir"
    return TILE / f"flash_attention_{arch.replace('_', '')}.mlir"


def _arch(arch: str) -> str:
    return arch.removesuffix("_ring")


def attention(q, k, v):
    s = (q.astype(np.float32) @ k.astype(np.float32).T) / 8
    p = np.exp(s - s.max(-1, keepdims=True))
    return [(p / p.sum(-1, keepdims=True)) @ v.astype(np.float32)]


def _inputs(length: int):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((length, 64)).astype(np.float16) for _ in range(3)]


def _generated(arch: str, length: int) -> str:
    return subprocess.run([sys.executable, str(TILE / "gen_flash_attention.py"), arch,
                           str(length)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("arch", ARCHS)
def test_the_example_is_its_generators_output(arch):
    assert example(arch).read_text() == _generated(arch, 256)


@pytest.mark.parametrize("arch", ARCHS)
def test_two_blocks_at_every_stage_and_compiled(arch):
    # P is rounded to f16 before P V (as on the hardware): 2e-3 of the f32 reference
    length = LENGTHS[arch]
    final = check_every_stage(_generated(arch, length), attention, arch=_arch(arch), rtol=0,
                              atol=2e-3, name="flash_attention", inputs=_inputs(length))
    text = str(final)
    op, count = ARCHS[arch]
    assert text.count(op) == count
    assert "tirx.gemm" not in text and "shfl" in text


@pytest.mark.parametrize("arch", ARCHS)
def test_the_example_size(arch):
    q, k, v = _inputs(256)
    module = lower(example(arch).read_text(), "flash_attention")
    args = bind_arguments(KernelRunner(module).kernel, [q, k, v])  # the ring's tensor maps
    run = simulate(module, None, *args, racecheck=arch == "sm_90a_ring")
    np.testing.assert_allclose(run.outputs[0], attention(q, k, v)[0], rtol=0, atol=2e-3)


def _ring_loops(module) -> tuple:
    """The lowered ring example's consumer and producer KV loops (the two branches of the
    split's ``scf.if``) and the consumers' ops after their loop (the drain). The consumers'
    KV loop is their one loop with wgmma ops (cuda-set-max-nreg moves the initialisation loops
    the producer does not need into their branch)."""
    split = next(op for op in module.walk() if isinstance(op, scf.IfOp) and
                 op.false_region.blocks and any(isinstance(o, scf.ForOp) for o in op.walk()))
    then_ops = list(split.true_region.block.ops)
    (mine,) = [o for o in then_ops if isinstance(o, scf.ForOp) and
               any(n.startswith("ptx.wgmma_mma") for n in _names(o))]
    (theirs,) = [o for o in split.false_region.block.ops if isinstance(o, scf.ForOp)]
    return mine, theirs, then_ops[then_ops.index(mine) + 1:]


def _names(op) -> list[str]:
    return [o.name for o in op.walk()]


def test_the_ring_example_splits_by_role_and_keeps_p_v_in_flight():
    """The consumers' loop holds the GEMMs and the softmax, unguarded, and no TMA, no barrier;
    the producer's holds the two TMA copies and nothing of the softmax. One wgmma wait per KV
    block (S's, which also retires the previous block's P V) and the drain's after the loop."""
    mine, theirs, drain = _ring_loops(lower(_generated("sm_90a_ring", 192), "flash_attention"))
    ours, producer = _names(mine), _names(theirs)
    assert ours.count("ptx.wgmma_mma_async_ss") == 4 and ours.count("ptx.wgmma_mma_async_rs") == 4
    assert "cuda.shfl_sync" in ours and "ptx.cp_async_bulk_tensor_g2s" not in ours
    assert "cuda.sync_threads" not in ours and "ptx.bar_sync" not in ours
    assert producer.count("ptx.cp_async_bulk_tensor_g2s") == 2
    assert not {"ptx.wgmma_mma_async_ss", "ptx.wgmma_mma_async_rs", "cuda.shfl_sync",
                "math.exp"} & set(producer)
    waits = [o for o in mine.walk() if o.name == "ptx.wgmma_wait_group"]
    assert [w.properties["n"].value.data for w in waits] == [0]
    mma = [o.name for o in mine.body.block.ops if o.name.startswith("ptx.wgmma")]
    # S's group waited for; P V's committed without a wait, retired by the next S's wait
    assert mma[-1] == "ptx.wgmma_commit_group" and "ptx.wgmma_wait_group" in mma
    assert [o.name for o in drain if o.name == "ptx.wgmma_wait_group"] == ["ptx.wgmma_wait_group"]


def test_releasing_v_before_p_v_retires_is_a_located_ring_order_error(monkeypatch):
    """Had dispatch released P V's V stage at its commit (no wait yet) instead of after the
    next S's wait, the producer's refill of that stage (block j + 2) would overwrite V while
    the wgmma may still read it: the SIMT interpreter's ring-order check refuses it, located."""
    from tirx_mlir.backends.cuda.dispatch import tma_ring
    from tirx_mlir.backends.cuda.dispatch import wgmma_in_flight as in_flight
    from tirx_mlir.interpreter.runtime import InterpretError

    real = in_flight.release_pending_view

    def at_once(ctx, b, view, slot, store, release=True):
        if not release:  # the deferred GEMM's own stage: released now, not pending
            tma_ring.release(b, tma_ring.ring_barriers(ctx, view), store)
            return
        real(ctx, b, view, slot, store, release)

    monkeypatch.setattr(in_flight, "release_pending_view", at_once)
    module = lower(_generated("sm_90a_ring", 192), "flash_attention")
    q, k, v = _inputs(192)
    args = bind_arguments(KernelRunner(module).kernel, [q, k, v])
    with pytest.raises(InterpretError, match=r"\[async\] ptx.cp_async_bulk_tensor_g2s.*"
                                             r"wgmma_mma_async_rs"):
        simulate(module, None, *args)


def _q_by_generic_copy(length: int) -> str:
    """The ring example with Q copied by ``tirx.copy`` (generic stores) instead of the TMA."""
    text = _generated("sm_90a_ring", length)
    old = 'tirx.copy_async cta %sq, %q dispatch "tma_auto" :'
    assert text.count(old) == 1
    return text.replace(old, "tirx.copy cta %sq, %q :")


def test_the_ring_loads_q_once_by_the_tma_and_waits_for_it_once():
    """Q by the TMA before the loop is a one-shot load (dispatch/tma_one_shot.py): its barrier
    is waited for once, by the consumer warpgroup, before the split loops, and never in them
    (a wait per KV block would be for a phase no copy completes: a deadlock); TMA writes need
    no proxy fence for wgmma."""
    module = lower(_generated("sm_90a_ring", 128), "flash_attention")
    mine, theirs, _ = _ring_loops(module)
    # per KV block the consumers wait for K's and V's stage, the producer for their release
    assert _names(mine).count("ptx.mbarrier_try_wait_parity") == 2
    assert _names(theirs).count("ptx.mbarrier_try_wait_parity") == 2
    waits = [o for o in module.walk() if o.name == "ptx.mbarrier_try_wait_parity"]
    assert len(waits) == 5  # and Q's, outside the loops
    (q_wait,) = [w for w in waits if not any(w in list(loop.walk()) for loop in (mine, theirs))]
    guard = q_wait.parent_op().parent_op()
    assert isinstance(guard, scf.IfOp) and guard.parent_op() is not None
    assert "ptx.fence_proxy_async" not in _names(module)
    assert _names(module).count("ptx.cp_async_bulk_tensor_g2s") == 3


def test_the_ring_fences_q_once_before_its_loop(monkeypatch):
    """Q written by generic stores (``tirx.copy``) before the loop and read by every S wgmma:
    one ``fence.proxy.async`` before the split loops (none in the consumers' loop) orders it
    for wgmma's async proxy; without it the first S's read of Q is a located [proxy] error."""
    from tirx_mlir.backends.cuda.dispatch import ring_loop_roles
    from tirx_mlir.interpreter.runtime import InterpretError

    module = lower(_q_by_generic_copy(128), "flash_attention")
    mine, theirs, _ = _ring_loops(module)
    assert "ptx.fence_proxy_async" not in _names(mine) + _names(theirs)
    assert _names(module).count("ptx.fence_proxy_async") == 1
    monkeypatch.setattr(ring_loop_roles, "fence_before", lambda ctx, loop: None)
    unfenced = lower(_q_by_generic_copy(128), "flash_attention")
    q, k, v = _inputs(128)
    with pytest.raises(InterpretError, match=r"\[proxy\] ptx.wgmma_mma_async_ss: reads shared"):
        simulate(unfenced, None, *bind_arguments(KernelRunner(unfenced).kernel, [q, k, v]))
