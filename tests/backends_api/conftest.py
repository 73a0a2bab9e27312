"""Fixtures of the backend-API tests: the test-only backends in testbackends/ on sys.path."""

from __future__ import annotations

import os
import sys

import pytest

TESTBACKENDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testbackends")


def _add_path() -> None:
    if TESTBACKENDS not in sys.path:
        sys.path.insert(0, TESTBACKENDS)


@pytest.fixture
def testbackends_path():
    """sys.path with the test backends (the loader refreshes its search path on a miss)."""
    _add_path()
    yield TESTBACKENDS


@pytest.fixture
def tirx_test(testbackends_path):
    """The test backend, loaded (once per session: loading is idempotent)."""
    from tirx_mlir import backends

    backends.load("tirx_test")
    return sys.modules["tirx_mlir.backends.tirx_test"]


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child Python that sees the test backends."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (TESTBACKENDS, env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


@pytest.fixture
def child_env():
    """``child_env(**extra)``: environment for a child Python that sees the test backends."""
    return subprocess_env
