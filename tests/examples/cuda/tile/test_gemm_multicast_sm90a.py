"""examples/cuda/tile/gemm_multicast_sm90a.mlir: numpy == tile interpreter == SIMT interpreter
after every pass, printed CUDA and PTX build for sm_90a without spills or advisories; B's box is
issued once per cluster (multicast), A's by each CTA."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tirx_testing.cuda_every_stage import check_every_stage

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / \
    "gemm_multicast_sm90a.mlir"


def test_gemm_multicast_every_stage_and_compiles():
    final = check_every_stage(
        EXAMPLE.read_text(), lambda a, b: [a.astype(np.float32) @ b.astype(np.float32).T],
        arch="sm_90a", rtol=1e-3, atol=1e-2, name="gemm_multicast_sm90a")
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") == 1  # B: one box, rank 0
    assert names.count("ptx.cp_async_bulk_tensor_g2s") == 1            # A: its own
    assert names.count("cuda.sync_cluster") == 1                       # before each B copy
