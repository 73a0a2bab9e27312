"""``tirx_mlir.emit(module, "nki")``: the source a ``-t`` printer emits, in one call.

    src = tirx_mlir.emit("examples/trn/add.mlir", "nki")       # a path, IR text, a module,
    ptx = tirx_mlir.emit(lowered_module, "ptx")                 # a kernel op or a script kernel

The target is a printer a backend registered (``registry.printers``: ``nki``, ``nki-legacy``,
``cuda``, ``ptx``); an unknown name is a KeyError listing them. (For the IR itself, ``str(module)``
is the custom form, as ``-t mlir``.) The module is printed as it is: lower it first
(``tirx_mlir.get_pipeline(...).apply(module)``) or use ``tirx_mlir.compile``.
"""

from __future__ import annotations

import io
from typing import Any


def emit(module: Any, target: str) -> str:
    """The text ``tirx-opt -t <target>`` prints for ``module``."""
    from tirx_mlir import registry
    from tirx_mlir.located_parser import make_context
    from tirx_mlir.runtime.compiler import as_module

    target_cls = registry.printers.lookup(target)()
    stream = io.StringIO()
    target_cls().emit(make_context(), as_module(module), stream)
    return stream.getvalue()
