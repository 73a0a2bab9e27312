"""`TirxFunctions`: the ``tirx`` dialect's interpreter implementations, as one set: kernels, scope
ids and buffers (`tirx_kernel`) plus the 31 tile primitives (`tirx_tile`).

(Named for what it holds: ``tirx_mlir.tirx`` is the backends' alias package, and the ``tirx``
dialect itself is ``tirx_mlir.dialects.tirx``.)"""

from __future__ import annotations

from xdsl.interpreter import register_impls

from tirx_mlir.interpreter.tirx_kernel import Launch, TirxKernelFunctions, current_launch
from tirx_mlir.interpreter.tirx_tile import TirxTileFunctions


@register_impls
class TirxFunctions(TirxKernelFunctions, TirxTileFunctions):
    """Every tirx op."""


__all__ = ["Launch", "TirxFunctions", "current_launch"]
