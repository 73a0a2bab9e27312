"""bench/trn_pass_cpu.py: one compile's stages are parse, every pass of the trn pipeline, the
verifications after them and printing, and the total is their sum; the script prints one JSON
line with the first compile and the median of the repeats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import trn_pass_cpu  # noqa: E402


def test_a_compile_is_timed_stage_by_stage():
    from tirx_mlir.pipelines import get_pipeline

    path = trn_pass_cpu.EXAMPLES / "nki_add_1.mlir"
    stages = trn_pass_cpu.compile_once(path.read_text(), str(path))
    passes = {p.name for p in get_pipeline("trn").passes}
    assert set(stages) == passes | {"parse", "verify", "print", "total"}
    assert all(v >= 0 for v in stages.values())
    assert abs(stages["total"] - sum(v for k, v in stages.items() if k != "total")) < 1e-6


def test_the_script_prints_first_and_repeat():
    out = subprocess.run([sys.executable, str(BENCH / "trn_pass_cpu.py"), "nki_add_1",
                          "--repeats", "2"], capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)
    assert row["kernel"] == "nki_add_1" and set(row["first"]) == set(row["repeat"])
    assert row["repeat"]["tirx-dispatch"] > 0
