"""bench/startup_split.py: one row per kernel, splitting what a compile adds to an empty run into
its imports, its first-use work and the warm compile; the last column is their share."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_script_splits_a_compile():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "startup_split.py"), "--kernels",
                          "nki_add_1", "--runs", "1"], capture_output=True, text=True,
                         check=True, env=env, timeout=600)
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tirx-opt on an empty module: ")
    row = next(line.split() for line in lines if line.startswith("nki_add_1"))
    modules, imports, first_use, warm, share = int(row[1]), *map(float, row[2:])
    empty = float(lines[0].split(": ")[1].split()[0])
    assert modules > 50 and imports > 0 and warm > 0  # the compile's own modules, listed
    # the share is (imports + the first compile) / the empty run, as printed
    assert abs(share - (imports + first_use + warm) / empty) < 0.002
    assert lines[-1].startswith("load average")
