"""tirx-run on programs that never end: --max-steps bounds the run (0 = no limit) and Ctrl-C
stops it with a short message and exit status 130, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tirx_mlir.interpreter.core import DEFAULT_MAX_STEPS
from tirx_mlir.tools import tirx_run
from tirx_testing.endless import ENDLESS_WHILE



@pytest.fixture
def endless(tmp_path) -> Path:
    path = tmp_path / "endless.mlir"
    path.write_text(ENDLESS_WHILE)
    return path


def test_max_steps_bounds_the_run(endless, capsys):
    rc = tirx_run.main([str(endless), "--max-steps", "1_000"])
    err = capsys.readouterr().err
    assert rc == 1
    assert err.startswith(f"{endless}:3:3: error: 'scf.while' op [step-budget] the run exceeded "
                          f"its budget of 1,000 steps")
    assert "Traceback" not in err


@pytest.mark.parametrize("bad", ["-1", "many", "1.5"])
def test_max_steps_must_be_a_count(endless, capsys, bad):
    assert tirx_run.main([str(endless), "--max-steps", bad]) == 1
    assert "argument --max-steps: expected an integer >= 0" in capsys.readouterr().err


def test_help_states_the_default_budget(capsys):
    with pytest.raises(SystemExit):
        tirx_run.main(["--help"])
    assert f"default {DEFAULT_MAX_STEPS:,}" in " ".join(capsys.readouterr().out.split())


def test_ctrl_c_stops_the_run_with_status_130(endless):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TIRX_MLIR_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "tirx_mlir.tools.tirx_run", str(endless),
                             "--max-steps", "0", "--print-ir"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline()  # the IR is printed just before the run starts
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err == "tirx-run: interrupted\n"
