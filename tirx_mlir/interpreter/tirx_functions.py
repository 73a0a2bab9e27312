"""`TirxFunctions`: the ``tirx`` dialect's interpreter implementations, as one set: kernels, scope
ids and buffers (`tirx_kernel`) plus the 31 tile primitives (`tirx_tile`).

(Named for what it holds: ``tirx_mlir.tirx`` is the backends' alias package, and the ``tirx``
dialect itself is ``tirx_mlir.dialects.tirx``.)"""

from __future__ import annotations

from xdsl.interpreter import Interpreter, register_impls
from xdsl.ir import Operation

from tirx_mlir.dialects.tirx.tile_base import TileOp

from tirx_mlir.interpreter.tirx_kernel import Launch, TirxKernelFunctions, current_launch
from tirx_mlir.interpreter.tirx_tile import TirxTileFunctions


@register_impls
class TirxFunctions(TirxKernelFunctions, TirxTileFunctions):
    """Every tirx op."""

    def prepare_op(self, interp: Interpreter, op: Operation):
        """A tile primitive, alloc or slice made ready to run (`core.BlockPlan`), else None."""
        if isinstance(op, TileOp):
            return self.prepare_tile(interp, op)
        return self.prepare_buffer_op(interp, op)


__all__ = ["Launch", "TirxFunctions", "current_launch"]
