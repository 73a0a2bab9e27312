"""examples/cuda/tile/cluster_exchange.mlir: numpy == tile interpreter == SIMT interpreter after
every pass of the cuda pipeline, printed CUDA and PTX build for sm_90a without spills or
advisories; the lowering is one bulk copy per step into the peer, completing on its inbox."""

from __future__ import annotations

from pathlib import Path


from tirx_testing.cuda_every_stage import check_every_stage

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / \
    "cluster_exchange.mlir"


def _reference(a):
    own = a.sum(axis=0)                      # [cta, 32, 64]: sum over the K steps
    return [own + own[[1, 0, 3, 2]]]         # plus the peer's (rank ^ 1 in each cluster)


def test_cluster_exchange_every_stage_and_compiles():
    final = check_every_stage(EXAMPLE.read_text(), _reference, arch="sm_90a",
                              name="cluster_exchange")
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_bulk_s2c") == 1       # the whole 8 KiB tile at once
    assert names.count("ptx.mapa") == 2                    # the peer's inbox and its tile
    assert names.count("cuda.sync_cluster") == 3           # inbox init, the sync's two halves
