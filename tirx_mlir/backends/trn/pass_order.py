"""What each pass of the ``trn`` pipeline needs from the passes before it, checked on entry.

The pipeline (docs/trn.md) is ``trn-default-layout``, ``tirx-dispatch``, ``trn-lower-layout``,
cleanups, ``trn-allocate``. A pass run by hand (``tirx-opt -p ...``) on IR that is not at its
stage would produce IR no later pass or printer accepts, or silently do nothing; instead it fails
at the first op that shows what is missing, naming the pass to run first:

* ``tirx-dispatch`` for a trn target needs every on-chip buffer to have its Trainium layout
  (``trn-default-layout``): the variants read partition tiles from it;
* ``trn-lower-layout`` and ``trn-allocate`` need nki instructions, not tile primitives
  (``tirx-dispatch``); ``trn-allocate`` needs physical ``[P, F]`` tiles (``trn-lower-layout``).
"""

from __future__ import annotations

from tirx_mlir.backends.trn.memory import is_on_chip
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import allocs
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.tile_base import is_tile_op
from tirx_mlir.type_tests import find_ops

CODE = "TRN-PASS-ORDER"
HINT = "run the whole pipeline (--pass-pipeline=trn); tirx-opt --print-pipeline=trn lists its passes"


def require_layouts(kernel: KernelOp, target: object = None) -> None:
    """Before ``tirx-dispatch``: every on-chip allocation has a layout (whatever the target)."""
    for alloc in allocs(kernel):
        btype = alloc.result.type
        assert isinstance(btype, BufferType)
        if is_on_chip(btype) and btype.get_layout() is None:
            raise PassError(f"buffer {btype} has no Trainium layout: run trn-default-layout "
                            f"before tirx-dispatch", alloc, code=CODE, hint=HINT)


def require_dispatched(kernel: KernelOp, pass_name: str) -> None:
    """Before ``pass_name``: no tile primitive is left (``tirx-dispatch`` has run)."""
    tiles = find_ops(kernel, is_tile_op)
    if tiles:
        tile = tiles[0]
        raise PassError(f"{tile.name} is a tile primitive, but {pass_name} works on nki "
                        f"instructions: run trn-default-layout and tirx-dispatch before "
                        f"{pass_name}", tile, code=CODE, hint=HINT)


def require_physical(kernel: KernelOp, pass_name: str) -> None:
    """Before ``pass_name``: tile primitives dispatched and every on-chip buffer a physical
    ``[P, F]`` tile without a layout (``trn-lower-layout`` has run)."""
    require_dispatched(kernel, pass_name)
    for alloc in allocs(kernel):
        btype = alloc.result.type
        assert isinstance(btype, BufferType)
        if is_on_chip(btype) and (btype.get_layout() is not None or btype.rank != 2):
            raise PassError(f"buffer {btype} is not a physical [P, F] tile: run "
                            f"trn-lower-layout before {pass_name}", alloc, code=CODE,
                            hint=HINT)
