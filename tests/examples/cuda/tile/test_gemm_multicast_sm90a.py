"""examples/cuda/tile/gemm_multicast_sm90a.mlir: numpy == tile interpreter == SIMT interpreter
after every pass, printed CUDA and PTX build for sm_90a without spills or advisories; B's box is
issued once per cluster (multicast, each CTA a 64-row slice of it), A's by each CTA; B's cluster
empty barrier counting one arrival short is a located WAR hazard across the cluster."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tirx_testing.cuda_every_stage import check_every_stage

KINDS = ("ptx.cp_async_bulk_tensor", "ptx.wgmma_mma")
"""The ops of the K loop's two roles (the producer's TMA, the consumers' wgmma)."""
EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / \
    "gemm_multicast_sm90a.mlir"


def test_gemm_multicast_every_stage_and_compiles():
    final = check_every_stage(
        EXAMPLE.read_text(), lambda a, b: [a.astype(np.float32) @ b.astype(np.float32).T],
        arch="sm_90a", rtol=1e-3, atol=1e-2, name="gemm_multicast_sm90a")
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") == 2  # B: a slice per rank
    assert names.count("ptx.cp_async_bulk_tensor_g2s") == 1            # A: its own
    # the rings' barriers initialised before a cluster barrier (full, empty), one at the exit;
    # none in the K loop: B's stages are released to the cluster through its empty barriers
    assert names.count("cuda.sync_cluster") == 3
    # the K loop is split by role (transforms/split_roles.py): the producer's and the
    # consumers', whose stage is released one K step late (a wgmma group in flight) and the
    # last one after the loop
    loops = [op for op in final.walk() if op.name == "scf.for" and
             any(o.name.startswith(KINDS) for o in op.walk())]
    assert len(loops) == 2
    assert not any(op.name == "cuda.sync_cluster" for loop in loops for op in loop.walk())
    remote = [op for op in loops[0].walk() if op.name == "ptx.mbarrier_arrive" and
              op.mods().get("space") == "shared::cluster"]
    assert len(remote) == 2 and names.count("ptx.mapa") == 4  # each CTA's empty[s], in the
    # consumers' loop and after it


def test_gemm_multicast_ring_neither_races_nor_deadlocks():
    """The final kernel under the SIMT interpreter with its race check: no barrier-ordered
    shared hazard, and no deadlock: a producer refills B's stage only after the 256 arrivals
    of both CTAs' consumers (each arrives on both CTAs' empty[s]); had they arrived only on
    their own CTA's, the wait would never complete and the run stops as a located deadlock."""
    from tirx_testing.cuda_every_stage import lower

    from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
    from tirx_mlir.backends.cuda.interpreter import simulate
    from tirx_mlir.interpreter import KernelRunner

    module = lower(EXAMPLE.read_text(), "gemm_multicast_sm90a")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 256)).astype(np.float16)
    b = rng.standard_normal((128, 256)).astype(np.float16)
    args = bind_arguments(KernelRunner(module).kernel, [a, b])
    c = simulate(module, None, *args, racecheck=True).outputs[0]
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-3,
                               atol=1e-2)


def test_a_cluster_empty_barrier_one_arrival_short_still_orders_both_ctas_wgmma():
    """B's empty barriers count the 8 consumer warps of both CTAs (4 each, arriving on both
    CTAs' barriers). Any 7 of them include warps of both CTAs' consumer warpgroups, each
    arriving after its ``wgmma.wait_group``, which retires the warpgroup's wgmma for all its
    threads: CTA 0's multicast refill is ordered after both CTAs' reads of the stage, and the
    run gives numpy's answer (tensor_core/wgmma_reads.py follows that knowledge through the
    cluster barrier's phase)."""
    from tirx_testing.cuda_every_stage import lower, run
    from tirx_testing.mbarrier_counts import set_init_count

    module = lower(EXAMPLE.read_text(), "gemm_multicast_sm90a")
    set_init_count(module, 8, 7)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 256)).astype(np.float16)
    b = rng.standard_normal((128, 256)).astype(np.float16)
    (c,) = run(module, [a, b])
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-4,
                               atol=1e-3)
