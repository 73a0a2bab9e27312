"""toolchain.py finds the CUDA tools in the pip wheels first, then CUDA_HOME, then PATH, and runs
ptxas on PTX text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tirx_mlir.backends.cuda import toolchain


def _fake_tool(directory: Path, name: str = "ptxas") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def nowhere(monkeypatch, tmp_path):
    """No wheel, no CUDA_HOME/CUDA_PATH, an empty PATH."""
    monkeypatch.setattr(toolchain, "_site_dirs", lambda: [])
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return monkeypatch


def test_the_wheel_comes_first(nowhere, tmp_path):
    wheel = _fake_tool(tmp_path / "site" / "nvidia" / "cu13" / "bin")
    _fake_tool(tmp_path / "home" / "bin")
    nowhere.setattr(toolchain, "_site_dirs", lambda: [tmp_path / "site"])
    nowhere.setenv("CUDA_HOME", str(tmp_path / "home"))
    assert toolchain.find_tool("ptxas") == wheel


def test_then_cuda_home_then_path(nowhere, tmp_path):
    on_path = _fake_tool(tmp_path / "bin")
    nowhere.setenv("PATH", str(tmp_path / "bin"))
    assert toolchain.find_tool("ptxas") == on_path
    home = _fake_tool(tmp_path / "home" / "bin")
    nowhere.setenv("CUDA_HOME", str(tmp_path / "home"))
    assert toolchain.find_tool("ptxas") == home


def test_nothing_found_says_how_to_get_it(nowhere):
    assert toolchain.find_tool("ptxas") is None
    assert "pip install -e '.[cuda]'" in toolchain.missing_reason("ptxas")
    with pytest.raises(FileNotFoundError, match="ptxas not found"):
        toolchain.assemble(".version 7.0\n", "sm_80")


PTXAS = toolchain.find_tool("ptxas")

MINIMAL = """.version 7.0
.target sm_80
.address_size 64
.visible .entry k()
{
    ret;
}
"""


@pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))
def test_assemble_reports_what_ptxas_says():
    assert toolchain.assemble(MINIMAL, "sm_80").ok
    bad = toolchain.assemble(MINIMAL.replace("ret;", "frobnicate;"), "sm_80")
    assert not bad.ok and "frobnicate" in bad.log
    too_old = toolchain.assemble(MINIMAL.replace("sm_80", "sm_90a"), "sm_90a")  # needs 8.0
    assert not too_old.ok and "version" in too_old.log.lower()


def test_the_wheels_of_the_cuda_extra_are_found_when_installed():
    wheel = toolchain.wheel_tool("ptxas")
    if wheel is None:
        pytest.skip("the cuda extra is not installed")
    assert wheel.parent.name == "bin" and os.access(wheel, os.X_OK)
