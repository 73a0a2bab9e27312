"""bench/cuda_dump.py --passes: one file per pass of a tile example's pipeline, numbered in
order, the last one the module the pipeline leaves."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import cuda_dump  # noqa: E402
from triton_peers import ours as O  # noqa: E402


def test_dump_passes_writes_the_module_after_each_pass(tmp_path):
    ex = O.examples(["tile/bias_silu"])[0]
    cuda_dump.dump_passes(ex, tmp_path / "bias_silu.passes")
    files = sorted((tmp_path / "bias_silu.passes").iterdir())
    names = [p.name for p in O.cuda_pipeline(ex.arch)]
    assert [f.name for f in files] == [f"{i + 1:02d}_{n}.mlir" for i, n in enumerate(names)]
    assert str(O.compile_stages(ex).module) == files[-1].read_text()
    assert files[0].read_text() != files[-1].read_text()
