"""docs/cuda_interpreter.md stays true: its Python examples and shell commands run."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "cuda_interpreter.md").read_text()


def test_python_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", PAGE, re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/cuda_interpreter.md", "exec"), {})  # noqa: S102 - our docs


def test_shell_commands_run():
    block = re.search(r"```sh\n(.*?)```", PAGE, re.S).group(1)
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    bindir = Path(sys.executable).parent
    ran = 0
    for line in filter(None, lines):
        argv = shlex.split(line)
        assert argv[0] == "tirx-run", line
        argv[0] = str(bindir / argv[0])
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONWARNINGS": "error"})
        assert proc.returncode == 0, f"{line}\n{proc.stderr}"
        assert proc.stdout.strip(), line
        ran += 1
    assert ran >= 1
