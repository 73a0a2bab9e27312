"""``tirx-dispatch``: replace every tile primitive by its target's implementation.

The target of a kernel is the pass option ``target`` (a target string or tag), else the kernel's
``target``, else the module's ``tirx.target`` attribute, else the current ``with Target(...)``
(`tirx_mlir.target.kernel_target`).
Each tile op is dispatched with `tirx_mlir.dispatch.context.run_dispatch` (TIRx's algorithm,
see tirx_mlir/dispatch/). An implementation may itself produce tile primitives; they are
dispatched in turn, depth first, up to `MAX_NESTING` levels (a variant that keeps re-emitting its
own op is an error, not a hang); a failure inside a decomposition is reported at the op the
user wrote (`search.run_dispatch`'s ``origin``). Afterwards the module is marked ``tirx.dispatched``, so a tile
op that is left over fails verification.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.kernel import kernels
from tirx_mlir.dialects.tirx.tile_base import DISPATCHED_ATTR, TileOp, is_tile_op
from tirx_mlir.ir_walk import walk_ops

MAX_NESTING = 8


def _top_level_tile_ops(ops) -> list[TileOp]:
    return [t for o in ops for t in walk_ops(o) if is_tile_op(t)
            and not is_tile_op(t.parent_op())]


@dataclass(frozen=True)
class TileDispatchPass(ModulePass):
    """Lower tile primitives to the target's ops (TIRx TilePrimitiveDispatch)."""

    name = "tirx-dispatch"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tirx_mlir.dialects.tirx.access import shared_views
        from tirx_mlir.dispatch.context import KernelState
        from tirx_mlir.dispatch.registry import check_dispatch_precondition
        from tirx_mlir.target.target import kernel_target

        for kernel in kernels(op):
            target = kernel_target(kernel, self.target)
            check_dispatch_precondition(kernel, target)
            with shared_views():
                self._dispatch_kernel(kernel, target, KernelState(kernel))
        op.attributes[DISPATCHED_ATTR] = UnitAttr()

    @staticmethod
    def _dispatch_kernel(kernel, target, state) -> None:
        """Dispatch every tile op of ``kernel``, depth first. The views of the kernel are
        resolved once for all its ops (`access.shared_views`): dispatch changes no view op (a
        variant adds ops, the search moves them in and replaces tile ops), so a view's access
        pattern, and what a backend derives from it, holds for the whole pass."""
        from tirx_mlir.dispatch.context import DispatchContext
        from tirx_mlir.dispatch.search import run_dispatch

        # a stack, next op last: an op's decomposition is dispatched before the ops after it
        worklist = [(t, ()) for t in reversed(_top_level_tile_ops([kernel]))]
        replaced = []  # detached, erased once their decompositions are dispatched
        while worklist:
            tile, origin = worklist.pop()
            if len(origin) > MAX_NESTING:
                raise PassError(f"tile dispatch of {tile.name} nested deeper than "
                                f"{MAX_NESTING} levels; a variant keeps re-emitting tile "
                                f"primitives", tile)
            variant, new_ops = run_dispatch(
                tile, lambda t=tile: DispatchContext(t, target, kernel, state), origin)
            tile.detach()
            replaced.append(tile)
            inner = (*origin, (tile, variant))
            worklist += [(t, inner) for t in reversed(_top_level_tile_ops(new_ops))]
        for tile in replaced:
            tile.erase()
