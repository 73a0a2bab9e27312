"""What the CUDA C++ and PTX printers share: the PTX register class of each value (for
inline-asm constraints and register declarations) and whether a ptx op touches memory."""

from __future__ import annotations

from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp

REGISTER_FAMILIES = frozenset({"mov", "cvt", "prmt", "shfl.sync", "vote.sync", "redux.sync",
                               "elect.sync", "mapa", "cvta", "mma"})
REGISTER_ROWS = frozenset({"activemask", "match_any_sync", "getctarank"})
"""Row families and rows that only read and write registers (no ``"memory"`` clobber)."""


def touches_memory(op: PtxOp) -> bool:
    """Whether the instruction reads or writes memory or orders memory accesses (an address or
    tensor-map operand, or a family outside `REGISTER_FAMILIES`: fences, barriers, async
    copies, wgmma)."""
    entry = op.ENTRY
    known = _TOUCHES.get(entry.name)
    if known is None:
        known = _TOUCHES[entry.name] = \
            any(o.kind in ("addr", "tensor") for o in entry.operands) or \
            (entry.family not in REGISTER_FAMILIES and entry.name not in REGISTER_ROWS)
    return known


_TOUCHES: dict[str, bool] = {}
"""`touches_memory` by table row (a row's answer depends on the row alone)."""
