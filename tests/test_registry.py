"""tirx_mlir.registry: lazy factories (`Lazy`) import on call and register idempotently."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tirx_mlir import registry
from tirx_mlir.registry import Lazy


def test_lazy_imports_its_module_only_when_called():
    code = ("import sys\n"
            "from tirx_mlir.registry import Lazy\n"
            "factory = Lazy('json.decoder', 'JSONDecoder')\n"
            "assert 'json.decoder' not in sys.modules\n"
            "import json.decoder\n"
            "assert factory() is json.decoder.JSONDecoder\n")
    subprocess.run([sys.executable, "-S", "-c", code], check=True,
                   env={"PYTHONPATH": ":".join(p for p in sys.path if p)})


def test_equal_lazy_factories_register_idempotently_and_others_conflict():
    with registry.owner_scope("test_lazy"):
        registry.register_printer("test-lazy", Lazy("textwrap", "dedent"))
        registry.register_printer("test-lazy", Lazy("textwrap", "dedent"))  # same spec: no-op
        with pytest.raises(registry.RegistryError, match="already registered"):
            registry.register_printer("test-lazy", Lazy("textwrap", "indent"))
    import textwrap

    assert registry.printers.lookup("test-lazy")() is textwrap.dedent
    registry.drop_owner_everywhere("test_lazy")
    assert "test-lazy" not in registry.list_printers()
