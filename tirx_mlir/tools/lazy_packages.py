"""xDSL's ``xdsl.dialects.utils`` package, its modules imported when one of their names is read.

The package's ``__init__`` star-imports its six modules. Two of them (``dimension_list`` and
``dynamic_index_list``, the custom directives of memref's and tensor's formats) import xDSL's
declarative-format machinery, ~4.5 ms of CPU; a Trainium compile imports the package for five
names (arith's ``BitEnumAttribute``, ``FastMathAttrBase``, ``FastMathFlag``, scf's format
helpers, the tirx dialect's ``EnumAttribute``) and, since `tirx_mlir.simple_formats` runs its
three formats, needs that machinery nowhere else.

`install()` puts a finder first on ``sys.meta_path`` for the packages of `LAZY`. Importing such a
package with a valid table (below) makes the package module without running its ``__init__``;
reading a name on it imports the submodule the name's value comes from (a module-level
``__getattr__``) and keeps the value on the package, and ``__all__`` lists every name
``__init__`` would have bound, so ``from package import *`` gets the same names and objects. A
name the table does not know runs the real ``__init__`` in the package's namespace (the package
is then exactly the eager one) before it is looked up.

The table maps each name ``__init__`` binds to the submodule it comes from: found once by
running ``__init__`` eagerly (the first run, or after a change) and tracing every value to a
submodule that holds the very same object, the one defining it first. It is saved in
``<cache dir>/lazy-packages.marshal`` with the size and modification time of ``__init__`` and of
every submodule it read: any change to those files (an xDSL upgrade, an edit) or a package at
another path (another environment sharing the cache folder) makes the table stale and the
package is imported eagerly, and a new table is written; a missing, unreadable or
corrupt file (its CRC-32 is checked), or one holding anything but the expected types, is ignored
the same way, and a name the table sends to a module that lacks it completes the package.
``TIRX_MLIR_CACHE=0`` leaves the packages eager. Only the tools install it, beside their caches.

Threads: completing takes a lock only to claim the package, not while ``__init__`` runs (which
waits for its submodules' import locks); a thread reading an unknown name meanwhile sees the
package as it stands, as with any partially initialized module.
"""

from __future__ import annotations

import importlib
import marshal
import os
import sys
import threading
import zlib
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

LAZY = ("xdsl.dialects.utils",)
FORMAT = 1
_LOCK = threading.Lock()
"""Guards a package's claim to complete (`_make_lazy`'s ``complete``); held for no import."""
_MODULE_ATTRS = frozenset(("__name__", "__doc__", "__package__", "__loader__", "__spec__",
                           "__path__", "__file__", "__cached__", "__builtins__"))

Table = dict
"""``{"files": [(path, size, mtime_ns)], "names": {name: (submodule, is the submodule
itself)}, "order": [names as ``__init__`` binds them]}``."""

_tables: dict[str, Table] = {}
"""The tables read from disk (valid or not yet checked), by package."""
_built: dict[str, Table] = {}
"""Tables built in this run (to save at exit)."""
lazy_loaded: list[str] = []
"""The packages made lazily in this process."""


def cache_file() -> str:
    from tirx_mlir.runtime.cache_location import cache_dir

    return os.path.join(cache_dir(), "lazy-packages.marshal")


def installed() -> bool:
    return any(isinstance(finder, _Finder) for finder in sys.meta_path)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (idempotent; off when ``TIRX_MLIR_CACHE=0``)."""
    import atexit

    from tirx_mlir.runtime.cache_location import cache_enabled

    if installed() or not cache_enabled():
        return
    _tables.update(read(cache_file()))
    sys.meta_path.insert(0, _Finder())
    atexit.register(save)


class _Finder:
    """Finds the packages of `LAZY` as the path finder does, with `_Loader` as their loader."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> ModuleSpec | None:
        if fullname not in LAZY:
            return None
        spec = PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or not spec.submodule_search_locations:
            return None
        spec.loader = _Loader(spec.loader)
        return spec


class _Loader:
    """Runs the package's ``__init__`` (the ``real`` loader) only without a valid table."""

    def __init__(self, real: Any):
        self.real = real

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        name = module.__name__
        table = _tables.get(name)
        if table is not None and _current(table) and _same_package(table, module):
            _make_lazy(module, table, self.real)
            lazy_loaded.append(name)
            return
        self.real.exec_module(module)
        built = _trace(module)
        if built is not None:
            _built[name] = built


def _same_package(table: Table, module: ModuleType) -> bool:
    """Whether the table was built from this very package: its first file is the ``__init__``
    being imported (the cache folder is shared by every environment; another one's xDSL has
    files of its own, unchanged, so `_current` alone would accept its table here)."""
    return bool(table["files"]) and table["files"][0][0] == module.__spec__.origin


def _current(table: Table) -> bool:
    """Whether every file the table was built from is unchanged."""
    for path, size, mtime in table["files"]:
        try:
            info = os.stat(path)
        except OSError:
            return False
        if info.st_size != size or info.st_mtime_ns != mtime:
            return False
    return True


def _make_lazy(module: ModuleType, table: Table, real: Any) -> None:
    names: dict[str, tuple[str, bool]] = table["names"]
    package = module.__name__
    namespace = module.__dict__

    def complete() -> None:
        """Run the real ``__init__`` here (once): the package is then the eager one.

        The lock guards only the claim (taking the hooks off the namespace), never ``__init__``
        itself: ``__init__`` imports the package's submodules and so waits for their import
        locks, and a thread importing one of them (holding its lock) may read an unknown name
        of the package and come here. That thread finds the claim taken and returns, and the
        name is looked up in the package as it stands, as Python does for a partially
        initialized module, instead of waiting for a lock whose holder waits for it."""
        with _LOCK:
            if namespace.get("__getattr__") is not __getattr__:
                return  # completed, or being completed, by another thread
            for attr in ("__getattr__", "__dir__", "__all__"):
                namespace.pop(attr, None)
        real.exec_module(module)

    def __getattr__(name: str) -> Any:
        # no lock held while importing: a submodule being imported by another thread may read
        # a name of the package (fast_math reads BitEnumAttribute), and the import system's
        # own locks make concurrent imports of one submodule safe
        where = names.get(name)
        if where is None:
            complete()
            return _lookup(module, name)
        submodule = importlib.import_module(f"{package}.{where[0]}")
        value = submodule if where[1] else getattr(submodule, name, _MISSING)
        if value is _MISSING:  # the table is wrong about this name: be the eager package
            complete()
            return _lookup(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    namespace["__all__"] = list(table["order"])


def _lookup(module: ModuleType, name: str) -> Any:
    try:
        return module.__dict__[name]
    except KeyError:
        raise AttributeError(f"module '{module.__name__}' has no attribute '{name}'") from None


def _trace(module: ModuleType) -> Table | None:
    """The table of ``module`` as its ``__init__`` left it; None when some name's value is not
    the very object one of its submodules holds (the package then stays eager)."""
    package = module.__name__
    prefix = package + "."
    submodules = {key[len(prefix):]: mod for key, mod in list(sys.modules.items())
                  if key.startswith(prefix) and "." not in key[len(prefix):]
                  and mod is not None}
    names: dict[str, tuple[str, bool]] = {}
    order: list[str] = []
    for name, value in module.__dict__.items():
        if name in _MODULE_ATTRS or name.startswith("_"):
            continue  # a star import binds no private name unless listed; we list none
        order.append(name)
        if submodules.get(name) is value:
            names[name] = (name, True)
            continue
        holders = [sub for sub, mod in submodules.items()
                   if mod.__dict__.get(name, _MISSING) is value]
        defining = [sub for sub in holders
                    if getattr(value, "__module__", None) == prefix + sub]
        if not holders:
            return None
        names[name] = ((defining or holders)[0], False)
    files = [module.__file__] + [submodules[sub].__file__ for sub, _ in names.values()]
    try:
        stats = [(path, os.stat(path).st_size, os.stat(path).st_mtime_ns)
                 for path in dict.fromkeys(files) if path]
    except (OSError, TypeError):
        return None
    return {"files": stats, "names": names, "order": order}


_MISSING = object()


def save() -> None:
    """Write the tables built in this run (at exit)."""
    if not _built:
        return
    tables = {**_tables, **_built}
    try:
        payload = marshal.dumps(tables)
        data = marshal.dumps((FORMAT, zlib.crc32(payload), payload))
        from tirx_mlir.tools.atomic_file import write_files_atomically

        path = cache_file()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_files_atomically([(path, lambda f: f.write(data))])
    except (OSError, ValueError):
        return  # an unwritable cache only costs the next run its speed
    _built.clear()


def read(path: str) -> dict[str, Table]:
    """The tables in ``path``, by package: only the well-formed ones."""
    try:
        with open(path, "rb") as f:
            form, crc, payload = marshal.load(f)
        if form != FORMAT or type(payload) is not bytes or zlib.crc32(payload) != crc:
            return {}
        tables = marshal.loads(payload)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if type(tables) is not dict:
        return {}
    return {name: table for name, table in tables.items()
            if name in LAZY and _well_formed(table)}


def _well_formed(table: Any) -> bool:
    if type(table) is not dict or set(table) != {"files", "names", "order"}:
        return False
    files, names, order = table["files"], table["names"], table["order"]
    return type(files) is list and type(names) is dict and type(order) is list and \
        all(type(f) is tuple and len(f) == 3 and type(f[0]) is str and type(f[1]) is int and
            type(f[2]) is int for f in files) and \
        all(type(k) is str and type(v) is tuple and len(v) == 2 and type(v[0]) is str and
            v[0].isidentifier() and type(v[1]) is bool for k, v in names.items()) and \
        set(order) == set(names)
