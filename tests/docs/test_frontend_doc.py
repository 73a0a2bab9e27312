"""docs/frontend.md runs: its ``python`` blocks, in order, as one file (the front end reads a
kernel's source, so the blocks must live in a real file)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "frontend.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_the_tutorial_runs(tmp_path, capsys):
    blocks = BLOCK.findall(DOC.read_text())
    assert len(blocks) >= 6
    script = tmp_path / "frontend.py"
    script.write_text("\n\n".join(blocks))
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert f"{script}:" in out and "error: Tx.copy" in out  # the located error it prints
