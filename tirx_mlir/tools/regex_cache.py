"""Compiled regular expressions, kept on disk for the tools' next run.

Python compiles a pattern (``re.compile``, or the first ``re.match(pattern, text)``) in two
steps: ``re._parser`` and ``re._compiler``, pure Python, turn the text into the matcher's
program (a list of integers), and ``_sre.compile`` (C) builds the pattern object from it. The
first step is the cost: a ``tirx-opt`` run compiles ~60 patterns (xDSL's lexer and argument
specs, argparse, the project's parser and layout syntax) at 0.05-0.3 ms each, and ``re``'s own
cache lives only as long as the process.

`install()` replaces ``re._compiler.compile`` (what ``re`` calls for a pattern it has not
compiled in this process) by a function that looks ``(pattern, flags)`` up in a table of the
arguments ``_sre.compile`` was given for it, and calls ``_sre.compile`` with them. A pattern not
in the table is compiled by the standard compiler, which is watched for the arguments it passes
to ``_sre.compile``; they join the table, which is written back at exit when the run added any.
So a pattern object is what the standard compiler makes for that text and those flags: the same
program, flags, groups and group names. Only the tools install it (``tirx-opt``, ``tirx-run``,
``tirx-layout``, beside `tirx_mlir.tools.dataclass_cache`); ``import tirx_mlir`` leaves ``re``
alone. Not kept: ``re.DEBUG`` patterns (the compiler prints their program), ``re.TEMPLATE`` and
``re.LOCALE`` ones, patterns that are instances of str or bytes subclasses, and ``tokenize``'s,
whose text changes from one process to the next (`_varies`): a run that compiles only those
writes nothing.

File: ``<cache dir>/regex-code-<Python cache tag>.marshal`` (`tirx_mlir.runtime.cache_location`;
``TIRX_MLIR_CACHE=0`` turns it off). The program depends on the Python build (its ``re``
compiler, ``_sre``'s opcodes, the Unicode tables case-insensitive patterns read), so the file
names the build it was made by (`BUILD`: the version string, ``hexversion``, ``_sre.MAGIC``,
``sys.maxunicode``) and holds a CRC-32 of its table: a file of another build, a truncated or
corrupt one, or one that is not a table of the expected types is ignored (the run compiles as
without it and writes a new one). ``_sre.compile`` also checks every program it is given (an
invalid one raises ``RuntimeError``, and the pattern is then compiled as without the cache). The
file is written to a temporary name and renamed into place; it is trusted as ``__pycache__`` is.
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
import zlib
from typing import Any

import _sre
import re
from re import _compiler  # type: ignore[attr-defined]

FORMAT = 1
"""The file layout's version."""

BUILD = f"{sys.version}|{sys.hexversion}|{_sre.MAGIC}|{sys.maxunicode}"
"""What the compiled programs depend on besides the pattern and its flags."""

MAX_AGE = 16
"""An entry no run used in this many writes of the table is dropped (the patterns of a program
that no longer runs; any other pattern whose text differs from one process to the next, as
`_varies` finds ``tokenize``'s, would otherwise stay forever)."""

_UNCACHED_FLAGS = re.DEBUG | re.LOCALE | getattr(re, "TEMPLATE", 0)
_LOCK = threading.RLock()

Entry = tuple[int, list, int, dict, tuple]
"""``_sre.compile``'s arguments after the pattern: final flags, program, groups - 1, group
index, index group."""


class _Recorder:
    """``_sre`` as the standard compiler sees it while a pattern is compiled: ``compile``
    records its arguments, everything else is ``_sre``'s."""

    def __init__(self) -> None:
        self.args: tuple | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(_sre, name)

    def compile(self, *args: Any) -> Any:
        self.args = args
        return _sre.compile(*args)


class _Table:
    """The loaded table ((pattern, flags) -> `Entry`) and what this run did with it."""

    def __init__(self, path: str):
        self.path = path
        self.ages = read(path)
        """(pattern, flags) -> how many writes of the table no run has used it in."""
        self.entries = {key: entry for key, (_, entry) in self.ages.items()}
        self.used: set[tuple] = set()
        self.hits = 0
        self.new = 0


_table: _Table | None = None
_standard = _compiler.compile
"""The standard compiler (``re._compiler.compile`` before `install`)."""


def cache_file() -> str:
    from tirx_mlir.runtime.cache_location import cache_dir

    return os.path.join(cache_dir(), f"regex-code-{sys.implementation.cache_tag}.marshal")


def installed() -> bool:
    return getattr(_compiler.compile, "regex_cache", False)


def install() -> None:
    """Compile patterns through the on-disk table (idempotent; off when ``TIRX_MLIR_CACHE=0``)."""
    import atexit

    from tirx_mlir.runtime.cache_location import cache_enabled

    global _table
    if installed() or not cache_enabled():
        return
    _table = _Table(cache_file())
    _compiler.compile = compile_pattern
    atexit.register(save)


def compile_pattern(p: Any, flags: int = 0) -> Any:
    """``re._compiler.compile`` through the table: the pattern object the standard compiler
    makes for ``p`` and ``flags``."""
    table = _table
    if table is None or type(p) not in (str, bytes) or type(flags) is not int or \
            flags & _UNCACHED_FLAGS:
        return _standard(p, flags)
    key = (p, flags)
    entry = table.entries.get(key)
    if entry is not None:
        try:
            pattern = _sre.compile(p, *entry)
        except (RuntimeError, TypeError, ValueError, OverflowError):
            pass  # not a program this build accepts: compile it again below
        else:
            table.hits += 1
            table.used.add(key)
            return pattern
    with _LOCK:
        recorder = _Recorder()
        _compiler._sre = recorder
        try:
            pattern = _standard(p, flags)
        finally:
            _compiler._sre = _sre
    args = recorder.args
    if args is not None and len(args) == 6 and args[0] is p and not _varies(p):
        # the program's opcodes are int subclasses (``re._constants``): kept as plain ints
        final_flags, code, groups, groupindex, indexgroup = args[1:]
        table.entries[key] = (int(final_flags), [int(word) for word in code], int(groups),
                              dict(groupindex), tuple(indexgroup))
        table.used.add(key)
        table.new += 1
    return pattern


compile_pattern.regex_cache = True  # type: ignore[attr-defined]


def _varies(p: str | bytes) -> bool:
    """Whether ``p`` is one of the patterns ``tokenize`` builds from a set of string prefixes:
    their text follows the set's order, so string hashing makes them differ from one process to
    the next (``inspect.signature`` of a class whose ``__init__`` is built in tokenizes its text
    signature: ``dataclasses`` asks that of a dataclass without a docstring)."""
    tokenize = sys.modules.get("tokenize")
    return tokenize is not None and (p == getattr(tokenize, "PseudoToken", None) or
                                     p in getattr(tokenize, "endpats", {}).values())


def save() -> None:
    """Write the table back if this run compiled patterns it did not hold (at exit)."""
    table = _table
    if table is None or not table.new:
        return
    used, ages = table.used, table.ages
    kept = {key: (0 if key in used else ages[key][0] + 1, entry)
            for key, entry in table.entries.items()
            if key in used or (key in ages and ages[key][0] < MAX_AGE)}
    try:
        payload = marshal.dumps(kept)
    except ValueError:  # an entry marshal cannot write (not one `compile_pattern` makes)
        return
    data = marshal.dumps((FORMAT, BUILD, zlib.crc32(payload), payload))
    try:
        from tirx_mlir.tools.atomic_file import write_files_atomically

        os.makedirs(os.path.dirname(table.path), exist_ok=True)
        write_files_atomically([(table.path, lambda f: f.write(data))])
    except OSError:
        return  # an unwritable cache only costs the next run its speed
    table.new = 0


def stats() -> dict[str, int]:
    """``hits`` (patterns built from the table) and ``new`` (compiled and not yet saved)."""
    return {"hits": _table.hits if _table else 0, "new": _table.new if _table else 0}


def read(path: str) -> dict[tuple, tuple[int, Entry]]:
    """The table in ``path``, (pattern, flags) -> (age, `Entry`); empty when the file is
    missing, of another build or format, fails its CRC-32, or holds anything but entries of the
    expected types."""
    try:
        with open(path, "rb") as f:
            head = marshal.load(f)
        form, build, crc, payload = head
        if form != FORMAT or build != BUILD or type(payload) is not bytes or \
                zlib.crc32(payload) != crc:
            return {}
        table = marshal.loads(payload)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if type(table) is not dict:
        return {}
    return {key: value for key, value in table.items() if _well_typed(key, value)}


def _well_typed(key: Any, value: Any) -> bool:
    if type(value) is not tuple or len(value) != 2 or type(value[0]) is not int:
        return False
    entry = value[1]
    return type(key) is tuple and len(key) == 2 and type(key[0]) in (str, bytes) and \
        type(key[1]) is int and type(entry) is tuple and len(entry) == 5 and \
        type(entry[0]) is int and type(entry[1]) is list and type(entry[2]) is int and \
        type(entry[3]) is dict and type(entry[4]) is tuple
