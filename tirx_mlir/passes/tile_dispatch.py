"""``tirx-dispatch``: replace every tile primitive by its target's implementation.

The target comes from the pass option ``target`` (a target string or tag), else the kernel's
``target``, else the module's ``tirx.target`` attribute. Each tile op is dispatched with
`tirx_mlir.dispatch.run_dispatch`; an implementation may itself produce tile primitives, which
are dispatched in turn (up to a nesting depth, to stop a variant that re-emits its own op).
Afterwards the module is marked ``tirx.dispatched``, so a tile op that is somehow left fails
verification.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.passes import ModulePass

from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import TargetAttr
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.tile_base import DISPATCHED_ATTR, TileOp

MAX_NESTING = 8


def resolve_target(module: ModuleOp, kernel: KernelOp, option: str | None):
    """The Target a kernel compiles for (pass option > kernel > module attribute)."""
    from tirx_mlir.target import Target, TargetError

    text = option
    if text is None and kernel.target is not None:
        text = kernel.target.data
    if text is None:
        attr = module.attributes.get("tirx.target")
        if isinstance(attr, (TargetAttr, StringAttr)):
            text = attr.data
    if text is None:
        raise PassError(f"kernel @{kernel.kernel_name} has no target", kernel,
                        hint="add `target \"...\"` to the kernel, a tirx.target attribute to the "
                             "module, or pass tirx-dispatch{target=...}")
    try:
        return Target(text)
    except TargetError as err:
        raise PassError(str(err), kernel) from None


@dataclass(frozen=True)
class TileDispatchPass(ModulePass):
    """Lower tile primitives to the target's ops (TIRx TilePrimitiveDispatch)."""

    name = "tirx-dispatch"

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tirx_mlir.dispatch import DispatchContext, KernelState, run_dispatch

        for kernel in [k for k in op.walk() if isinstance(k, KernelOp)]:
            target = resolve_target(op, kernel, self.target)
            state = KernelState(kernel)
            worklist = [(t, 0) for t in kernel.walk() if isinstance(t, TileOp)
                        and not isinstance(t.parent_op(), TileOp)]
            while worklist:
                tile, depth = worklist.pop(0)
                if depth > MAX_NESTING:
                    raise PassError(f"tile dispatch of {tile.name} nested deeper than "
                                    f"{MAX_NESTING} levels; a variant keeps re-emitting tile "
                                    f"primitives", tile)
                _, new_ops = run_dispatch(
                    tile, lambda: DispatchContext(tile, target, kernel, state))
                tile.erase()
                nested = [t for o in new_ops for t in o.walk() if isinstance(t, TileOp)
                          and not isinstance(t.parent_op(), TileOp)]
                worklist[:0] = [(t, depth + 1) for t in nested]
        op.attributes[DISPATCHED_ATTR] = UnitAttr()
