"""``ptx.ld`` / ``ptx.st``: loads and stores through addresses, scalar or ``.v2``/``.v4``.

The state space selects the memory (memory.py): ``.global`` takes a generic/global address,
``.shared``/``.shared::cta`` a shared-window address of the thread's CTA, ``.shared::cluster``
a cluster-window address (``mapa``). The registers' types give the element width; the bits move
unchanged (a ``.b32`` load into an ``f32`` register reinterprets them). Cache and eviction hints,
``.nc``, ``.relaxed``/``.acquire``/``.volatile`` and scopes order nothing the interpreter would
reorder (every op runs in program order on coherent memory).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype

SPACES = {"global": memory.GLOBAL, "shared": memory.SHARED, "shared::cta": memory.SHARED,
          "shared::cluster": memory.CLUSTER}


def space_of(ctx, mods) -> str:
    space = mods.get("space")
    if space not in SPACES:
        raise ctx.error(f"the SIMT interpreter has no .{space} state space here")
    return SPACES[space]


@ptx_row("ld")
def run_ld(ctx, op, args):
    view = row_view(op, args)
    dtype = lane_dtype(op.results[0].type)
    values = ctx.mem.load(ctx, space_of(ctx, view.mods), view.one("addr").astype(np.int64),
                          dtype, len(op.results))
    return tuple(values[:, i] for i in range(len(op.results)))


@ptx_row("st")
def run_st(ctx, op, args):
    view = row_view(op, args)
    regs = [r for name, group in view.reads.items() if name != "addr" for r in group]
    dtype = regs[0].dtype
    data = np.stack([r.astype(dtype, copy=False) for r in regs], axis=1)
    ctx.mem.store(ctx, space_of(ctx, view.mods), view.one("addr").astype(np.int64), data)
    return ()
