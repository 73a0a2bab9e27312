"""Runs the lit + FileCheck suite (tests/filecheck) so that plain ``pytest`` runs everything.

The test fails if any lit test fails; lit's summary (and the output of failing tests) is
printed either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FILECHECK_DIR = Path(__file__).resolve().parents[1] / "filecheck"


def test_lit_suite() -> None:
    cmd = [sys.executable, "-c", "import sys; from lit.main import main; sys.exit(main())",
           "-sv", "--order=smart", str(FILECHECK_DIR)]
    env = dict(os.environ)
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    print(result.stdout[-20000:])
    print(result.stderr[-5000:], file=sys.stderr)
    assert "Total Discovered Tests" in result.stdout + result.stderr, "lit did not run"
    assert result.returncode == 0, "lit tests failed (see the summary above)"
