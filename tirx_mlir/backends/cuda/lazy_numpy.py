"""numpy for the modules a CUDA compile imports, itself imported only when first used.

Importing numpy costs ~100 ms of CPU, a sixth of a fresh ``tirx-opt --pass-pipeline=cuda``
compile of a small kernel (bench/README.md, "Fresh CUDA compiles"). The layout, the dispatch
variants and the tensor-core fragment maps they read use numpy only in the functions that
enumerate threads, fragments or lanes, which a kernel without tensor-core tiles or register
partitions to check never calls (every variant module is imported for every kernel), nor one
whose register tiles are only read by the ops that iterate over them (checked per thread,
`dispatch.common._own_slots`). A register operand of another layout (a broadcast row), a
reduction into a register tile and the mma fragment maps still import it. Each such module binds
``np`` to `lazy_numpy` (the real module for type checkers):

    if TYPE_CHECKING:
        import numpy as np
    else:
        np = lazy_numpy(globals())

The first attribute read through it imports numpy and rebinds the module's ``np`` to numpy
itself, so later reads cost what a plain ``import numpy as np`` costs. A module must not read
``np`` at import time (a module-level constant): that would import numpy for every compile.
"""

from __future__ import annotations

from typing import Any


class _LazyNumpy:
    """Stands for ``numpy`` in one module's namespace until its first attribute read."""

    __slots__ = ("_namespace",)

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        import numpy

        self._namespace["np"] = numpy
        return getattr(numpy, name)


def lazy_numpy(namespace: dict[str, Any]) -> Any:
    """What a module binds to ``np``: numpy, imported and bound in ``namespace`` on first use."""
    return _LazyNumpy(namespace)
