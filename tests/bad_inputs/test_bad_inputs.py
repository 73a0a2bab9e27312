"""The bad-input corpus: ``tirx-opt`` (or ``tirx-run``) on every file here must fail cleanly.

Each ``*.mlir`` file is wrong in one way. A header may hold:

* ``// TOOL: tirx-run``: run the file with ``tirx-run`` instead of ``tirx-opt`` (run-time
  failures: step budget, allocation limits, recursion);
* ``// ARGS: ...``: extra command-line arguments (shell-quoted);
* ``// EXPECT-ERROR: text``: the located error must contain ``text``;
* ``// EXPECT-CLI-ERROR: text``: a command-line error (``tirx-opt: error: ...``) containing it.

For every file: exit code 1, an error line (``file:line:col: error:`` pointing at a real line
and column of the file, or the CLI-level error), and never a Python traceback. With
``-o out.mlir``, an existing out.mlir is left untouched.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent
FILES = sorted(CORPUS.glob("*.mlir"))
TOOLS = {"tirx-opt": [sys.executable, "-m", "tirx_mlir.tools.tirx_opt"],
         "tirx-run": [sys.executable, "-m", "tirx_mlir.tools.tirx_run"]}
LOCATED = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+)$",
                     re.MULTILINE)
ORIGINAL_OUTPUT = "// an output file from an earlier run\n"


def header(path: Path, key: str) -> str | None:
    for raw in path.read_bytes().splitlines()[:5]:
        line = raw.decode("utf-8", "replace")
        if line.startswith(f"// {key}:"):
            return line[len(key) + 4:].strip()
    return None


def tool(path: Path) -> str:
    return header(path, "TOOL") or "tirx-opt"


def run_tirx_opt(path: Path, output: Path | None = None) -> subprocess.CompletedProcess:
    """The file's tool (tirx-opt unless a TOOL header says otherwise) on the file."""
    args = shlex.split(header(path, "ARGS") or "")
    if output is not None:
        args += ["-o", str(output)]
    env = {**os.environ, "TIRX_MLIR_REPRODUCER_DIR": str(output.parent) if output else "/tmp"}
    env.pop("TIRX_MLIR_DEBUG", None)
    return subprocess.run([*TOOLS[tool(path)], path.name, *args], cwd=CORPUS, capture_output=True,
                          text=True, timeout=120, env=env)


@lru_cache(maxsize=1)
def all_results() -> dict[str, subprocess.CompletedProcess]:
    """Run the whole corpus once, two processes at a time (each run is ~0.3 s of start-up)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip((f.name for f in FILES), pool.map(run_tirx_opt, FILES)))


def test_corpus_is_large_enough() -> None:
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_bad_input_fails_cleanly(path: Path) -> None:
    result = all_results()[path.name]
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "Traceback" not in out, out
    assert "internal compiler error" not in out and "internal error" not in out, out

    cli_expect = header(path, "EXPECT-CLI-ERROR")
    if cli_expect is not None:
        assert result.stderr.startswith(f"{tool(path)}: error: "), out
        assert cli_expect in result.stderr, out
        return

    match = LOCATED.search(result.stderr)
    assert match is not None, f"no file:line:col: error: line in\n{out}"
    assert match.group("file") == path.name, out
    lines = path.read_bytes().split(b"\n")
    line, col = int(match.group("line")), int(match.group("col"))
    assert 1 <= line <= len(lines), f"line {line} is outside the file\n{out}"
    assert 1 <= col <= len(lines[line - 1]) + 1, f"column {col} is outside line {line}\n{out}"
    expect = header(path, "EXPECT-ERROR")
    assert expect is not None, f"{path.name} has no EXPECT-ERROR header"
    assert expect in match.group("msg"), out


@pytest.mark.parametrize("name", ["layout_not_covering.mlir", "unknown_op.mlir",
                                  "dispatch_without_target.mlir", "unknown_pass.mlir"])
def test_failed_run_leaves_existing_output_untouched(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    out.write_text(ORIGINAL_OUTPUT)
    result = run_tirx_opt(CORPUS / name, output=out)
    assert result.returncode == 1, result.stderr
    assert out.read_text() == ORIGINAL_OUTPUT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mlir"], "temp files left behind"
