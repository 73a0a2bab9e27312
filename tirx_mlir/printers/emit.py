"""``tirx_mlir.emit(module, target)``: the source a ``-t`` printer emits, in one call.

    src = tirx_mlir.emit(lowered_module, name)     # module: a ModuleOp, IR text, a .mlir path,
                                                   # a tirx.kernel op or a script kernel

The target is the name of a printer some backend registered (``registry.printers``, what
``tirx-opt -t`` offers); an unknown name is a KeyError listing them. (For the IR itself,
``str(module)`` is its custom form.) The module is printed as it is: lower it first
(``tirx_mlir.get_pipeline(...).apply(module)``) or use ``tirx_mlir.compile``.
"""

from __future__ import annotations

import io
from typing import Any


def emit(module: Any, target: str) -> str:
    """The text ``tirx-opt -t <target>`` prints for ``module``."""
    from tirx_mlir import registry
    from tirx_mlir.located_parser import as_module, make_context

    target_cls = registry.printers.lookup(target)()
    stream = io.StringIO()
    target_cls().emit(make_context(), as_module(module, "emit"), stream)
    return stream.getvalue()
