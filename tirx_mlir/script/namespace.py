"""What every backend script namespace (``Tx.nki``, ``Tx.cuda``, ``Tx.ptx``...) shares: looking a
function up by name, and the error for a name it does not have.

A backend registers a namespace object with ``registry.register_script_namespace(name, ns)``;
the front end finds it as ``Tx.<name>`` (builder and ``@Tx.kernel`` alike). The object's
``__getattr__`` calls `lookup` with its table of builders. An unknown name is an `UnknownName`:
an `AttributeError` (``hasattr`` works) and a `ScriptError` (shown at the user's line) that
lists the close names.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable

from tirx_mlir.script.builder import ScriptError


class UnknownName(ScriptError, AttributeError):
    """``Tx.<namespace>.<name>`` that the namespace does not have."""


def lookup(namespace: str, table: dict[str, Callable[..., Any]], name: str,
           what: str = "op") -> Callable[..., Any]:
    """``table[name]``, or an `UnknownName` naming the close entries (or all, when none is)."""
    if name in table:
        return table[name]
    close = difflib.get_close_matches(name, list(table), n=4, cutoff=0.6)
    maybe = f"; did you mean {', '.join(f'Tx.{namespace}.{c}' for c in close)}?" if close \
        else f"; it has: {', '.join(sorted(table))}"
    raise UnknownName(f"Tx.{namespace} has no {what} '{name}'{maybe}")
