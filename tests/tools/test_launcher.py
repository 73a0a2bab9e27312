"""``python -m tirx_mlir opt|run`` and ``python -m tirx_mlir.tools.tirx_opt`` (tools/launcher.py),
run as a user runs them: a fresh interpreter, no console scripts needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """\
tirx.kernel @k(%A: !tirx.buffer<8xf32, global>) -> (%B: !tirx.buffer<8xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  tirx.exp %B, %A : !tirx.buffer<8xf32, global>, !tirx.buffer<8xf32, global>
  tirx.return
}
"""


def python_m(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          input=stdin, timeout=120)


@pytest.fixture
def kernel(tmp_path: Path) -> str:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    return str(path)


@pytest.mark.parametrize("module", [["tirx_mlir", "opt"], ["tirx_mlir", "tirx-opt"],
                                    ["tirx_mlir.tools.tirx_opt"]])
def test_opt_entry_points(module: list[str], kernel: str) -> None:
    result = python_m(*module, kernel, "-p", "dce")
    assert result.returncode == 0, result.stderr
    assert "tirx.exp" in result.stdout and "arith.constant" not in result.stdout


@pytest.mark.parametrize("module", [["tirx_mlir", "run"], ["tirx_mlir.tools.tirx_run"]])
def test_run_entry_points(module: list[str], kernel: str) -> None:
    result = python_m(*module, kernel)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("%B: [8] f32  min ")


def test_a_tool_error_keeps_its_exit_status(kernel: str) -> None:
    result = python_m("tirx_mlir", "opt", kernel, "-p", "no-such-pass")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "tirx-opt: error: unknown pass 'no-such-pass'" in result.stderr


def test_usage_and_unknown_tools() -> None:
    help_ = python_m("tirx_mlir", "--help")
    assert help_.returncode == 0 and "  opt " in help_.stdout and "  run " in help_.stdout
    bare = python_m("tirx_mlir")
    assert bare.returncode == 1 and bare.stderr.startswith("usage: python -m tirx_mlir TOOL")
    wrong = python_m("tirx_mlir", "opx")
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert wrong.stderr == "python -m tirx_mlir: error: unknown tool 'opx' (did you mean " \
                           "'opt'?); tools: opt, run, layout\n"
    version = python_m("tirx_mlir", "--version")
    assert version.returncode == 0 and version.stdout.startswith("tirx_mlir ")
