"""The dispatch registry imports a target kind's variant modules on first use, and again
whenever the registrations change or a module left ``sys.modules``."""

from __future__ import annotations

import sys

from tirx_mlir import registry
from tirx_mlir.dispatch import registry as R


def _module(tmp_path, name: str) -> None:
    (tmp_path / f"{name}.py").write_text("IMPORTED = True\n")


def test_modules_registered_later_and_modules_dropped_are_imported(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    owner = "test_registry_kind"
    kind = "test-registry-kind"
    first, second = "tirx_registry_probe_first", "tirx_registry_probe_second"
    _module(tmp_path, first)
    _module(tmp_path, second)
    try:
        with registry.owner_scope(owner):
            R.register_dispatch_module(kind, first)
        assert R.cases_for("tirx.copy", kind) == []
        assert first in sys.modules and second not in sys.modules
        with registry.owner_scope(owner):
            R.register_dispatch_module(kind, second)
        R.cases_for("tirx.copy", kind)
        assert second in sys.modules          # the registry changed: read again
        del sys.modules[first]
        R.cases_for("tirx.copy", kind)
        assert first in sys.modules           # a dropped module is imported again
    finally:
        R._modules.drop_owner(owner)
        for name in (first, second):
            sys.modules.pop(name, None)
    assert all(key[0] != kind for key, _ in R._modules.items())
