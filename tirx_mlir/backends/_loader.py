"""The backend loader: `load`, `is_loaded`, `loaded_backends`, and the ``tirx_mlir.tirx`` alias.

``load(name)`` follows TIRx's loader (apache/tvm `python/tvm/backend/loader.py`), with a complete rollback:

1. a backend already loaded (or being loaded by this thread, e.g. from its own hook) returns at once;
2. ``tirx_mlir.backends.<name>`` is imported (a missing package is an `ImportError` that says
   what was expected; a missing *dependency* inside the package propagates unchanged);
3. the package must define ``register_backend()``;
4. before the hook runs the module is published as ``tirx_mlir.tirx.<name>`` and recorded, so the
   alias works while the hook runs;
5. ``register_backend()`` runs once, inside ``registry.hook_scope(name)``: every registration it
   makes (in any `tirx_mlir.registry.Registry`), also from threads it starts, is recorded as
   owned by the backend;
6. on any exception the load leaves no trace: no record, no alias (also the sub-module aliases
   made meanwhile), no module of the backend in ``sys.modules``, and none of the registrations the
   hook made before it failed (`registry.drop_owner_everywhere`). Then the error propagates.

Loading is thread-safe: one re-entrant lock serialises loads, so concurrent ``load("x")`` calls run
the hook once and all return after it finished.

The alias finder sits first on ``sys.meta_path`` and maps ``tirx_mlir.tirx.<loaded>.<sub>`` to the
real module ``tirx_mlir.backends.<loaded>.<sub>``: the same object, not a proxy.

Out-of-tree backends: ``load("foo")`` finds ``foo/__init__.py`` in any directory of the backend
search path: the builtin backends' folder, directories given to `add_search_path` or listed in
``$TIRX_MLIR_BACKEND_PATH`` (os.pathsep-separated), and any ``<entry>/tirx_mlir/backends/`` on
``sys.path`` (TIRx's namespace-package style; it works for regular installs of tirx_mlir, but an
editable install is shadowed by a ``tirx_mlir/`` folder on ``sys.path``, so prefer the first two).
The search path is refreshed whenever a name is not found.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import threading
import types
from typing import Any

from tirx_mlir import registry

BACKENDS_PACKAGE = "tirx_mlir.backends"
ALIAS_PACKAGE = "tirx_mlir.tirx"

_loaded: dict[str, types.ModuleType] = {}
"""name -> backend package, in the order loads started (the record, made before the hook)."""
_complete: set[str] = set()
"""Backends whose hook has returned (the lock-free fast path of `load` checks this)."""
_lock = threading.RLock()
_extra_paths: list[str] = []
SEARCH_PATH_ENV = "TIRX_MLIR_BACKEND_PATH"


class BackendLoadError(ImportError):
    """A backend package that cannot be loaded (absent, malformed, or a bad name)."""


# --- the search path -----------------------------------------------------------------------------


def refresh_search_path() -> list[str]:
    """Add every ``<sys.path entry>/tirx_mlir/backends`` directory to the package's ``__path__``.

    Called when ``tirx_mlir.backends`` is imported and again when a backend is not found, so
    directories put on ``sys.path`` later are seen too. Returns the search path.
    """
    package = sys.modules[BACKENDS_PACKAGE]
    path: list[str] = package.__path__  # type: ignore[assignment]
    env = [p for p in os.environ.get(SEARCH_PATH_ENV, "").split(os.pathsep) if p]
    candidates = [*_extra_paths, *env]
    candidates += [os.path.join(entry or os.getcwd(), "tirx_mlir", "backends")
                   for entry in list(sys.path) if isinstance(entry, str)]
    for candidate in candidates:
        if candidate not in path and os.path.isdir(candidate):
            real = os.path.realpath(candidate)
            if all(os.path.realpath(p) != real for p in path):
                path.append(candidate)
    importlib.invalidate_caches()
    return list(path)


def add_search_path(directory: str) -> None:
    """Let `load` find backend packages ``<directory>/<name>/__init__.py`` (imported as
    ``tirx_mlir.backends.<name>``; do not also import them under another name)."""
    directory = os.path.abspath(directory)
    if directory not in _extra_paths:
        _extra_paths.append(directory)
    refresh_search_path()


# --- the record -------------------------------------------------------------------------------------


def is_loaded(name: str) -> bool:
    """Whether backend ``name`` has been loaded (its ``register_backend()`` succeeded or runs)."""
    return name in _loaded


def loaded_backends() -> tuple[str, ...]:
    """Names of the loaded backends, in load order."""
    with _lock:
        return tuple(_loaded)


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise BackendLoadError(f"invalid backend name {name!r}: expected a Python identifier that "
                               f"does not start with '_' (the package tirx_mlir.backends.<name>)")


def _import_backend(name: str) -> types.ModuleType:
    fullname = f"{BACKENDS_PACKAGE}.{name}"
    for attempt in range(2):
        try:
            return importlib.import_module(fullname)
        except ModuleNotFoundError as err:
            if err.name != fullname:
                raise  # a dependency of the backend is missing: say which one
            if attempt == 0:
                refresh_search_path()
                continue
            raise BackendLoadError(
                f"cannot load tirx_mlir backend '{name}': expected a Python package "
                f"'{fullname}' (searched {', '.join(refresh_search_path())}); install the backend "
                f"package or check the name", name=fullname) from None
    raise AssertionError("unreachable")


def load(name: str) -> None:
    """Load backend ``name``: import ``tirx_mlir.backends.<name>``, call its ``register_backend()``
    once, and publish it as ``tirx_mlir.tirx.<name>``. Idempotent and thread-safe; a failure
    rolls everything back and re-raises."""
    _check_name(name)
    if name in _complete:
        return
    with _lock:
        if name in _loaded:  # loaded, or being loaded by this thread (a hook loading itself)
            return
        before = set(sys.modules)
        try:
            module = _import_backend(name)
            hook = getattr(module, "register_backend", None)
            if not callable(hook):
                raise BackendLoadError(
                    f"backend package '{module.__name__}' has no register_backend(); define "
                    f"`def register_backend() -> None` in its __init__.py to register what it "
                    f"provides", name=module.__name__)
            _publish(name, module)
            _loaded[name] = module
            with registry.hook_scope(name):
                hook()
            alias_loaded_submodules(name)
            _complete.add(name)
        except BaseException:
            _rollback(name, before)
            raise


def _publish(name: str, module: types.ModuleType) -> None:
    alias_package = importlib.import_module(ALIAS_PACKAGE)
    setattr(alias_package, name, module)
    sys.modules[f"{ALIAS_PACKAGE}.{name}"] = module


def _rollback(name: str, modules_before: set[str]) -> None:
    _complete.discard(name)
    _loaded.pop(name, None)
    registry.drop_owner_everywhere(name)
    alias_package = sys.modules.get(ALIAS_PACKAGE)
    if alias_package is not None and name in vars(alias_package):
        delattr(alias_package, name)
    backend_package = sys.modules.get(BACKENDS_PACKAGE)
    if backend_package is not None and name in vars(backend_package):
        delattr(backend_package, name)
    for prefix in (f"{ALIAS_PACKAGE}.{name}", f"{BACKENDS_PACKAGE}.{name}"):
        for key in [k for k in sys.modules if k == prefix or k.startswith(prefix + ".")]:
            if key not in modules_before or key.startswith(ALIAS_PACKAGE):
                del sys.modules[key]


def alias_loaded_submodules(name: str) -> None:
    """Publish every already-imported ``tirx_mlir.backends.<name>.*`` as ``tirx_mlir.tirx.<name>.*``."""
    real_prefix = f"{BACKENDS_PACKAGE}.{name}."
    for key in sorted(k for k in list(sys.modules) if k.startswith(real_prefix)):
        alias = f"{ALIAS_PACKAGE}.{name}.{key[len(real_prefix):]}"
        sys.modules.setdefault(alias, sys.modules[key])


def unload(name: str) -> None:
    """Forget backend ``name`` as if it had never been loaded: its registrations, its record,
    its aliases and its modules (a failed entry point that loaded it; tests)."""
    with _lock:
        if name in _loaded:
            _rollback(name, set())


_unload_for_tests = unload


# --- the alias finder ---------------------------------------------------------------------------------


class _SameModuleLoader:
    """Hands the import system an already-imported module (nothing is executed).

    The import system overwrites ``__spec__`` of whatever ``create_module`` returns; the real
    module's own spec is put back in ``exec_module``, so the module keeps its true identity.
    """

    def __init__(self, module: types.ModuleType):
        self.module = module
        self.own_spec = getattr(module, "__spec__", None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.own_spec


class BackendAliasFinder:
    """``tirx_mlir.tirx.<backend>.<sub>`` -> the module ``tirx_mlir.backends.<backend>.<sub>``,
    for loaded backends only."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if not fullname.startswith(ALIAS_PACKAGE + "."):
            return None
        backend, _, tail = fullname[len(ALIAS_PACKAGE) + 1:].partition(".")
        if not tail or backend not in _loaded:
            return None  # the bare backend name is in sys.modules once loaded
        module = importlib.import_module(f"{BACKENDS_PACKAGE}.{backend}.{tail}")
        spec = importlib.machinery.ModuleSpec(fullname, _SameModuleLoader(module),
                                              is_package=hasattr(module, "__path__"))
        return spec


def install_alias_finder() -> None:
    """Put the alias finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, BackendAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, BackendAliasFinder())
