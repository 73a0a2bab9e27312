"""examples/cuda/tile/gemm_128x256_sm90a.mlir (the 128x256x64 cooperative tile: one producer
warpgroup, two consumer warpgroups of m64n256k16 wgmmas): numpy == tile interpreter == SIMT
interpreter after every pass, printed CUDA and PTX build for sm_90a without spills or
advisories; the K loop split by role; registers not re-balanced (one CTA per SM either way)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tirx_testing.cuda_every_stage import check_every_stage

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / \
    "gemm_128x256_sm90a.mlir"


def test_gemm_128x256_every_stage_and_compiles():
    final = check_every_stage(
        EXAMPLE.read_text(), lambda a, b: [a.astype(np.float32) @ b.astype(np.float32).T],
        arch="sm_90a", rtol=1e-3, atol=1e-2, name="gemm_128x256_sm90a")
    names = [op.name for op in final.walk()]
    mma = [op for op in final.walk() if op.name == "ptx.wgmma_mma_async_ss"]
    assert len(mma) == 4 and all(op.mods()["shape"] == "m64n256k16" for op in mma)
    assert all(len(op.results) == 128 for op in mma)  # accumulators per thread
    loops = [op for op in final.walk() if op.name == "scf.for" and
             any(o.name.startswith(("ptx.cp_async_bulk_tensor", "ptx.wgmma_mma"))
                 for o in op.walk())]
    assert len(loops) == 2  # the producer's and the consumers'
    assert "ptx.setmaxnreg" not in names
