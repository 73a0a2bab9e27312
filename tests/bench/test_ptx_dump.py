"""bench/ptx_dump.py: one file per example, the printer's PTX (or its refusal), the same text
on a second run."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import ptx_dump  # noqa: E402

EXAMPLES = ROOT / "examples" / "cuda"


def test_a_cuda_level_example_dumps_its_ptx_and_a_refused_one_its_error():
    ptx, seconds = ptx_dump.dump(EXAMPLES / "vector_add.mlir")
    assert ptx.startswith(".version") and ".visible .entry vector_add(" in ptx
    assert seconds >= 0
    refused, _ = ptx_dump.dump(EXAMPLES / "nvshmem_ring.mlir")
    assert refused.startswith("ERROR PrintError") and "cannot print nvshmem." in refused


def test_a_tile_example_goes_through_the_pipeline_and_prints_the_same_twice():
    first, _ = ptx_dump.dump(EXAMPLES / "tile" / "softmax.mlir")
    second, _ = ptx_dump.dump(EXAMPLES / "tile" / "softmax.mlir")
    assert first == second and ".target sm_80" in first and "tirx.softmax" not in first


def test_main_writes_one_file_per_example(tmp_path, capsys, monkeypatch):
    few = [EXAMPLES / "vector_add.mlir", EXAMPLES / "warp_reduce.mlir"]
    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter(few))
    assert ptx_dump.main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vector_add.ptx", "warp_reduce.ptx"]
    assert (tmp_path / "vector_add.ptx").read_text() == ptx_dump.dump(few[0])[0]
    assert "vector_add" in capsys.readouterr().out
