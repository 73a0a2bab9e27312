"""The dispatch registry imports a target kind's variant modules on first use, and again
whenever the registrations change or a module left ``sys.modules``."""

from __future__ import annotations

import sys

import pytest

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


def test_a_module_declared_for_ops_is_imported_for_those_ops_only(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    owner = "test_registry_ops"
    kind = "test-registry-ops"
    name = "tirx_registry_probe_ops"
    (tmp_path / f"{name}.py").write_text(
        "from tirx_mlir.dispatch import register_dispatch\n"
        f"@register_dispatch('copy', {kind!r}, variant='probe')\n"
        "def probe(op, ctx):\n    pass\n")
    try:
        with registry.owner_scope(owner):
            R.register_dispatch_module(kind, name, ("copy", "tirx.cast"))
        assert R.cases_for("tirx.add", kind) == []
        assert name not in sys.modules            # not declared for add: not imported
        assert [c.variant for c in R.cases_for("tirx.copy", kind)] == ["probe"]
        assert name in sys.modules
        assert R.list_registered_dispatch()["tirx.copy"][kind] == ["probe"]
    finally:
        R._modules.drop_owner(owner)
        R._cases.drop_owner(owner)
        sys.modules.pop(name, None)


def test_a_variant_outside_the_declared_ops_is_rejected(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    owner = "test_registry_undeclared"
    kind = "test-registry-undeclared"
    name = "tirx_registry_probe_undeclared"
    (tmp_path / f"{name}.py").write_text(
        "from tirx_mlir.dispatch import register_dispatch\n"
        f"@register_dispatch('gemm', {kind!r}, variant='probe')\n"
        "def probe(op, ctx):\n    pass\n")
    try:
        with registry.owner_scope(owner):
            R.register_dispatch_module(kind, name, ("copy",))
        with pytest.raises(registry.RegistryError, match="declared it for tirx.copy only"):
            R.cases_for("tirx.copy", kind)
    finally:
        R._modules.drop_owner(owner)
        R._cases.drop_owner(owner)
        sys.modules.pop(name, None)


def test_trn_variant_modules_declare_every_op_they_register():
    """Every trn variant registered by a module declared for some ops is for one of them (the
    registry raises otherwise when the module is imported: importing them all here)."""
    from tirx_mlir.backends.trn.dispatch import VARIANT_MODULES

    R.list_registered_dispatch()
    for (kind, module), (_, ops) in R._modules.items():
        if kind != "trn" or ops is None:
            continue
        short = module.rsplit(".", 1)[1]
        assert ops == {f"tirx.{op}" for op in VARIANT_MODULES[short]}
        registered = {o for (o, k, _), case in R._cases.items()
                      if k == "trn" and case.impl.__module__ == module}
        assert registered == ops, module  # declared exactly: no op listed without a variant
