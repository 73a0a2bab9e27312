"""The README stays true: its Python tour runs, and its main-job command works."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_python_tour_runs():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "the README has no Python example"
    for code in blocks:
        namespace: dict = {}
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - our own docs
        x, y = namespace["x"], namespace["y"]
        assert abs(y - (x + 1)).max() == 0


def test_main_job_command():
    block = re.search(r"Set up and run the main job.*?```sh\n(.*?)```", README, re.S).group(1)
    # skip the venv/install steps (the test runs inside an installed environment)
    steps = [s.strip() for s in block.split("&&")]
    tool_steps = [s for s in steps if s.startswith(("tirx-opt", "tirx-run"))]
    assert len(tool_steps) == 2
    bindir = Path(sys.executable).parent
    out = ""
    for step in tool_steps:
        argv = shlex.split(step)
        argv[0] = str(bindir / argv[0])
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        out += proc.stdout
    assert "nisa.activation_reduce" in out and "@nki.jit" in out
    assert re.search(r"%Y: \[128, 512\] f32 .* nan 0", out)


def test_trn_doc_commands_run():
    """Every tirx-opt / tirx-run line in docs/trn.md's shell block works as written."""
    text = (ROOT / "docs" / "trn.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    bindir = Path(sys.executable).parent
    ran = 0
    for line in filter(None, lines):
        argv = shlex.split(line)
        assert argv[0] in ("tirx-opt", "tirx-run"), line
        argv[0] = str(bindir / argv[0])
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{line}\n{proc.stderr}"
        assert proc.stdout.strip(), line
        ran += 1
    assert ran == 4
