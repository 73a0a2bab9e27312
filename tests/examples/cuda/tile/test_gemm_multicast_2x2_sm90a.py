"""examples/cuda/tile/gemm_multicast_2x2_sm90a.mlir: numpy == tile interpreter == SIMT
interpreter after every pass, printed CUDA and PTX build for sm_90a without spills or
advisories; A is multicast along the cluster's rows and B along its columns, each CTA of a
pair issuing a 64-row slice of the box, and each stage released to the CTAs that wrote it; the
final kernel neither races nor deadlocks, and with a wrong expect_tx or mask it fails."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr

from tirx_mlir.interpreter.runtime import InterpretError
from tirx_testing.cuda_every_stage import check_every_stage, lower

KINDS = ("ptx.cp_async_bulk_tensor", "ptx.wgmma_mma")
"""The ops of the K loop's two roles (the producer's TMA, the consumers' wgmma)."""
EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / \
    "gemm_multicast_2x2_sm90a.mlir"


def _reference(a, b):
    return [a.astype(np.float32) @ b.astype(np.float32).T]


def test_gemm_multicast_2x2_every_stage_and_compiles():
    final = check_every_stage(EXAMPLE.read_text(), _reference, arch="sm_90a", rtol=1e-3,
                              atol=1e-2, name="gemm_multicast_2x2_sm90a")
    names = [op.name for op in final.walk()]
    # A and B: two 64-row slices each (member 0 and 1 of the pair), no plain TMA load
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") == 4
    assert names.count("ptx.cp_async_bulk_tensor_g2s") == 0
    # each ring's barriers initialised before a cluster barrier (full, empty), one at the exit
    assert names.count("cuda.sync_cluster") == 5
    loops = [op for op in final.walk() if op.name == "scf.for" and  # the K loop, split by role
             any(o.name.startswith(KINDS) for o in op.walk())]
    assert len(loops) == 2
    assert not any(op.name == "cuda.sync_cluster" for loop in loops for op in loop.walk())
    loop = next(op for op in loops if any(o.name == "ptx.wgmma_wait_group" for o in op.walk()))
    remote = [op for op in loop.walk() if op.name == "ptx.mbarrier_arrive" and
              op.mods().get("space") == "shared::cluster"]
    assert len(remote) == 8  # per ring, one arrival per cluster rank (its lane of each consumer
    # warp), predicated on the group
    inits = [op for op in final.walk() if op.name == "ptx.mbarrier_init"]
    counts = {int(op.operands[1].owner.value.value.data) for op in inits}
    assert counts == {1, 8}  # full: the producer; empty: 4 consumer warps x the 2 writers


def _run(module, a, b, **options):
    from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
    from tirx_mlir.backends.cuda.interpreter import simulate
    from tirx_mlir.interpreter import KernelRunner

    args = bind_arguments(KernelRunner(module).kernel, [a, b])
    return simulate(module, None, *args, **options).outputs[0]


def test_gemm_multicast_2x2_neither_races_nor_deadlocks():
    """The final kernel under the SIMT interpreter with its race check: a producer refills a
    stage only after the 256 arrivals of its group's consumers (its own and its row's or
    column's peer's), and no shared hazard is ordered by a barrier alone."""
    module = lower(EXAMPLE.read_text(), "gemm_multicast_2x2_sm90a")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 256)).astype(np.float16)
    b = rng.standard_normal((256, 256)).astype(np.float16)
    np.testing.assert_allclose(_run(module, a, b, racecheck=True), _reference(a, b)[0],
                               rtol=1e-3, atol=1e-2)


def _constants(module, user: str, value: int):
    """The arith.constant ops of ``value`` that feed an op named ``user``."""
    return [op.operands[i].owner for op in module.walk() if op.name == user
            for i in range(len(op.operands))
            if op.operands[i].owner.name == "arith.constant" and
            op.operands[i].owner.value.value.data == value]


def test_a_wrong_expect_tx_or_mask_in_the_lowered_gemm_is_caught():
    """The final kernel with a deliberate mistake no longer runs: full barriers armed with half
    the tile's bytes (8192 of 16384) complete a phase on one slice and leave the other slice in
    flight (or, had both slices come at once, never complete: a deadlock); the run stops with
    an error naming the barrier or the copy. A's row mask 0b0011 widened to the whole cluster
    (0b1111) sends the row-0 slices to the CTAs of row 1 too: a row-1 CTA's phase completes on
    the first slices to land, and its wgmma reads A's tile while the other copy into it is
    still in flight (on a GPU it overwrites the tile at some time). With the racecheck on, the
    second copy into that tile is caught first, at its issue: two multicasts write it
    unordered (a WAW hazard)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((256, 256)).astype(np.float16)
    b = rng.standard_normal((256, 256)).astype(np.float16)

    half = lower(EXAMPLE.read_text(), "gemm_multicast_2x2_sm90a")
    armed = _constants(half, "ptx.mbarrier_arrive_expect_tx", 16384)
    assert armed
    for const in armed:
        const.value = IntegerAttr(8192, const.value.type)
    with pytest.raises(InterpretError, match="deadlock|before the copy has landed|holding "
                                             "8192 transaction bytes more than its phases "
                                             "expected"):
        _run(half, a, b)

    wide = lower(EXAMPLE.read_text(), "gemm_multicast_2x2_sm90a")
    rows = [c for c in wide.walk() if c.name == "arith.constant" and
            str(c.value.type) == "i16" and c.value.value.data == 3]
    assert rows
    for const in rows:
        const.value = IntegerAttr(15, const.value.type)
    with pytest.raises(InterpretError, match="wgmma_mma_async_ss: reads shared offset \\d+ "
                                             "\\(%sa\\[\\d+\\]\\) of CTA .0,1,0., the destination "
                                             ".* before the copy has landed"):
        _run(wide, a, b, racecheck=False)
    with pytest.raises(InterpretError, match="cp_async_bulk_tensor_g2s_multicast: potential WAW "
                                             "hazard at __shared__ 0x0 in block .0,1,0."):
        _run(wide, a, b)
