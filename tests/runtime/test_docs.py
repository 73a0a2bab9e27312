"""docs/runtime.md stays true: its ``python run`` blocks run in order in one fresh process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "runtime.md"
BLOCK = re.compile(r"^```python run\n(?P<code>.*?)^```$", re.MULTILINE | re.DOTALL)


def test_the_doc_has_its_examples():
    assert len(BLOCK.findall(DOC.read_text())) == 4


def test_the_doc_examples_run(tmp_path):
    script = tmp_path / "runtime_doc.py"
    script.write_text("\n".join(m.group("code") for m in BLOCK.finditer(DOC.read_text())))
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "['tirx-check-bounds', 'trn-default-layout', 'tirx-dispatch']"
    assert lines[2].startswith("True ") and lines[2].endswith(" True")
    assert lines[3] == "A: 128x512xf32, B: 128x512xf32, S: 128x1xf32, C: 128x512xf32"
    assert lines[4].startswith("@add takes 4 arguments (A: 128x512xf32")
    assert lines[5] == "double-free"
    assert lines[6] == "False True True"
