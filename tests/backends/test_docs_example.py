"""docs/backends.md's out-of-tree backend example, executed: blocks tagged ``file=PATH`` are
written to a temporary directory, blocks tagged ``run`` run there (in order, one process)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "backends.md"
BLOCK = re.compile(r"^```python (file=(?P<path>\S+)|(?P<run>run))\n(?P<code>.*?)^```$",
                   re.MULTILINE | re.DOTALL)


def extract(text: str) -> tuple[dict[str, str], list[str]]:
    files: dict[str, str] = {}
    runs: list[str] = []
    for m in BLOCK.finditer(text):
        if m.group("path"):
            files[m.group("path")] = m.group("code")
        else:
            runs.append(m.group("code"))
    return files, runs


def test_the_doc_has_the_example():
    files, runs = extract(DOC.read_text())
    assert set(files) == {"acme_tirx/__init__.py", "acme_tirx/tirx_backends/acme/__init__.py",
                          "acme_tirx/tirx_backends/acme/dispatch.py"}
    assert len(runs) == 2


def test_the_doc_example_runs(tmp_path):
    files, runs = extract(DOC.read_text())
    for rel, code in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    script = tmp_path / "example.py"
    script.write_text("\n".join(runs))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == 'tirx-dispatch{target="acme/a1"},canonicalize'
    assert [line.split()[0] for line in lines[1:4]] == ["input", "tirx-dispatch", "canonicalize"]
    assert "acme lowering matches the reference" in lines
    assert lines[-3:] == ["after tirx-dispatch", "after cse", "after dce"]
