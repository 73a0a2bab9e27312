"""From a pure lane function ``fn(op, args, mask)`` to a SIMT lane implementation
``impl(ctx, op, args)``: numpy's warnings are off (inactive lanes hold garbage) and a
`LaneFault` becomes the engine's located error naming the faulting threads."""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import LaneFault


def lane_fn_impl(fn):
    def run(ctx, op, args):
        try:
            with np.errstate(all="ignore"):
                return fn(op, args, ctx.mask)
        except LaneFault as fault:
            raise ctx.error(fault.message, fault.lanes, fault.hint) from None
    run.__name__ = f"run_{getattr(fn, '__name__', 'lane_fn')}"
    return run
