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


def test_every_change_bumps_the_version_and_a_repeat_does_not():
    from tirx_mlir.registry import Registry

    reg: Registry[int] = Registry("probe")
    start = reg.version
    reg.register("a", 1, owner="x")
    assert reg.version == start + 1
    reg.register("a", 1, owner="x")  # idempotent: nothing changed
    assert reg.version == start + 1
    reg.register("a", 2, owner="y", override=True)
    reg.drop_owner("y")
    reg.unregister("a")
    assert reg.version == start + 4
