"""The cuda runtime tests compile into a temporary cache directory."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIRX_MLIR_CACHE_DIR", str(tmp_path / "compile-cache"))
    monkeypatch.delenv("TIRX_MLIR_CACHE", raising=False)
