"""docs/cuda_ptx_coverage.md is generated from the PTX table and must be up to date."""

from __future__ import annotations

from pathlib import Path

from tirx_mlir.backends.cuda.dialects.ptx.coverage import (TIRX_FAMILIES, coverage_markdown,
                                                           tirx_family)
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS

DOC = Path(__file__).resolve().parents[5] / "docs" / "cuda_ptx_coverage.md"
REGENERATE = "python -m tirx_mlir.backends.cuda.dialects.ptx.coverage > docs/cuda_ptx_coverage.md"


def test_the_checked_in_doc_is_current():
    assert DOC.read_text() == coverage_markdown(), f"docs/cuda_ptx_coverage.md is stale: " \
                                                   f"run `{REGENERATE}`"


def test_every_row_is_listed_and_mapped_to_a_tirx_family():
    text = coverage_markdown()
    tirx = {name for members in TIRX_FAMILIES.values() for name in members}
    assert sum(len(m) for m in TIRX_FAMILIES.values()) == 93
    assert sum(sum(m.values()) for m in TIRX_FAMILIES.values()) == 317
    for row in ROWS:
        assert f"| `ptx.{row.name}` | `{row.template}` |" in text
        assert tirx_family(row) in tirx, f"{row.name}: '{row.tirx}' names no TIRx family"


def test_the_doc_states_what_waits():
    text = coverage_markdown()
    assert "| MMA | `tcgen05` (20) | — tcgen05/TMEM (sm_100a)" in text
    assert "wgmma.mma_async.sync.aligned.{shape}.{dtype}.{atype}.{btype}" in text
