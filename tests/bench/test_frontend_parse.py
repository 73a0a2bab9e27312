"""bench/frontend_parse.py: the generated kernel has the op count asked for, and the bench runs."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import frontend_parse  # noqa: E402


def test_the_bench_runs_and_times_a_kernel_of_the_size_asked(capsys):
    assert frontend_parse.main(["--ops", "50", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    n = int(out.split("kernel of ")[1].split()[0])
    assert 45 <= n <= 55 and "ratio front end / text IR" in out
