"""The bytecode of dataclass methods, compiled once and kept on disk for the tools' next run.

``@dataclass`` writes each generated method (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
a frozen class's ``__setattr__``/``__delattr__``) as Python source and compiles it with ``exec``
when the class is defined. xDSL defines every attribute, constraint and format directive as a
dataclass: starting ``tirx-opt`` creates ~210 of them and a Trainium compile ~300, and compiling
their methods was about half of the tool's start-up CPU time (~165 of ~330 ms to import
``tirx_mlir.tools.tirx_opt`` on the 2-vCPU machine of bench/README.md). Python's bytecode cache
(``__pycache__``) keeps the compiled modules but not this code, which is compiled again in every
process.

`install()` gives the ``dataclasses`` module its own ``exec`` that looks the source text up in a
table of compiled code objects before compiling it, and writes the table back at exit when the
run compiled new methods. A code object is what ``compile(text, "<string>", "exec")`` returns
for that very text (the text is the key, whole), run with the same globals and namespace as the
standard ``exec`` would, so every class gets the same methods as without the cache. Only the
tools install it (``tirx-opt``, ``tirx-run`` and ``tirx-layout`` call `install` before they
import xDSL); ``import tirx_mlir`` in a user's program, and plain ``xdsl-opt`` loading the
``xdsl_universe`` entry point, leave ``dataclasses`` alone.

File: ``<cache dir>/dataclass-code-<Python's bytecode magic>.marshal`` (the compile cache's
directory, `tirx_mlir.runtime.cache_location`; ``TIRX_MLIR_CACHE=0`` turns both off). It maps
source text to marshalled code; an entry is unmarshalled only when a class needs it. It is
written to a temporary name and renamed into place, so concurrent runs never see a partial
file; an unreadable, corrupt or foreign file is ignored (the run compiles as without the cache)
and one that cannot be written only costs the next run its speed. The file is trusted as
``__pycache__`` is: whoever can write the cache folder can run code in the tools.
"""

from __future__ import annotations

import builtins
import marshal
import os
from importlib.util import MAGIC_NUMBER
from types import CodeType

MAX_ENTRIES = 20_000
"""A table grown past this (many different programs' dataclasses) is written back with only the
entries the current run used."""


class _Table:
    """The loaded table (source text -> marshalled code) and what this run did with it."""

    def __init__(self, path: str):
        self.path = path
        self.entries = _read(path)
        self.used: set[str] = set()
        self.hits = 0
        self.new = 0

    def code(self, source: str) -> CodeType:
        """The code of ``source``: from the table, else compiled now (and added)."""
        self.used.add(source)
        data = self.entries.get(source)
        if data is not None:
            try:
                code = marshal.loads(data)
            except (EOFError, ValueError, TypeError):
                code = None
            if type(code) is CodeType:
                self.hits += 1
                return code
        code = compile(source, "<string>", "exec")
        self.entries[source] = marshal.dumps(code)
        self.new += 1
        return code


_table: _Table | None = None
"""The table `install` loaded (None before)."""


def cache_file() -> str:
    """Where the table lives for this Python (the bytecode magic names the format)."""
    from tirx_mlir.runtime.cache_location import cache_dir

    return os.path.join(cache_dir(), f"dataclass-code-{MAGIC_NUMBER.hex()}.marshal")


def installed() -> bool:
    import dataclasses

    return getattr(dataclasses.__dict__.get("exec"), "dataclass_cache", False)


def install() -> None:
    """Compile dataclass methods through the on-disk table (idempotent; off when
    ``TIRX_MLIR_CACHE=0``)."""
    import atexit
    import dataclasses

    from tirx_mlir.runtime.cache_location import cache_enabled

    global _table
    if installed() or not cache_enabled():
        return
    table = _table = _Table(cache_file())

    def cached_exec(source, globals=None, locals=None):
        if type(source) is str:
            source = table.code(source)
        return builtins.exec(source, globals, locals)

    cached_exec.dataclass_cache = True  # type: ignore[attr-defined]
    dataclasses.exec = cached_exec  # type: ignore[attr-defined]  # shadows the builtin there
    atexit.register(save)


def save() -> None:
    """Write the table back if this run compiled methods it did not hold (at exit)."""
    table = _table
    if table is None or not table.new:
        return
    entries = table.entries
    if len(entries) > MAX_ENTRIES:
        entries = {text: data for text, data in entries.items() if text in table.used}
    try:
        from tirx_mlir.tools.atomic_file import write_files_atomically

        os.makedirs(os.path.dirname(table.path), exist_ok=True)
        write_files_atomically([(table.path, lambda f: marshal.dump(entries, f))])
    except OSError:
        return  # an unwritable cache only costs the next run its speed
    table.new = 0


def stats() -> dict[str, int]:
    """``hits`` (methods found compiled) and ``new`` (methods compiled and not yet saved)."""
    return {"hits": _table.hits if _table else 0, "new": _table.new if _table else 0}


def _read(path: str) -> dict[str, bytes]:
    try:
        with open(path, "rb") as f:
            table = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if type(table) is not dict:
        return {}
    return {k: v for k, v in table.items() if type(k) is str and type(v) is bytes}
