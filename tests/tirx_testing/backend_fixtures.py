"""Fixtures of the backend-API tests (a pytest plugin of the root conftest): the test-only backends
in tests/backends/testbackends/ on the loader's
search path (add_search_path in this process, $TIRX_MLIR_BACKEND_PATH in child processes)."""

from __future__ import annotations

import os
import sys
import pytest

TESTBACKENDS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "backends",
                            "testbackends")


@pytest.fixture
def testbackends_path():
    """The test backends on the loader's search path."""
    from tirx_mlir.backends import add_search_path

    add_search_path(TESTBACKENDS)
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
    env["TIRX_MLIR_BACKEND_PATH"] = TESTBACKENDS
    env.update(extra)
    return env


@pytest.fixture
def child_env():
    """``child_env(**extra)``: environment for a child Python that sees the test backends."""
    return subprocess_env
