"""What the CUDA C++ and PTX printers share: the PTX register class of each value (for
inline-asm constraints and register declarations), whether a ptx op touches memory, which
kernel parameters are tensor maps passed by value, and the launch a collective ptx op needs
(checked again when printing: IR may skip verification)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Operation

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.ptx import collective
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.host_tensor_maps import TENSOR_MAPS_ATTR
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp

TENSOR_MAP_BYTES = 128
"""A CUtensorMap: the parameters ``cuda.tensor_maps`` names are passed by value, 64-byte
aligned, in the kernel's parameter space (`-t cuda`: ``const __grid_constant__`` structs;
`-t ptx`: ``.param .align 64 .b8 p[128]``, whose generic address ``cvta.param`` gives)."""


def tensor_map_positions(kernel: Operation,
                         fail: Callable[[str, Operation], Exception]) -> set[int]:
    """The positions of the kernel's tensor-map parameters; ``fail(message, op)`` makes the
    located error for a malformed attribute or a parameter that is not a 128-byte buffer."""
    attr = kernel.attributes.get(TENSOR_MAPS_ATTR)
    if attr is None:
        return set()
    if not isinstance(attr, DenseArrayBase):
        raise fail(f"{TENSOR_MAPS_ATTR} must be an array<i64: ...> of parameter positions",
                   kernel)
    args = kernel.body.block.args
    positions = set()
    for pos in attr.get_values():
        if not (isinstance(pos, int) and 0 <= pos < len(args)):
            raise fail(f"{TENSOR_MAPS_ATTR} names parameter {pos}, but the kernel has "
                       f"{len(args)}", kernel)
        t = args[pos].type
        if not isinstance(t, BufferType) or \
                t.numel * checks.element_bytes(t.element_type) != TENSOR_MAP_BYTES:
            raise fail(f"tensor-map parameter {pos} must be a 128-byte buffer "
                       f"(!tirx.buffer<128xi8, global>), got {t}", kernel)
        positions.add(pos)
    return positions

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


def collective_problem(op: PtxOp, kernel: KernelOp | None) -> tuple[str, str] | None:
    """(message, hint) when ``op`` is a collective instruction that ``kernel``'s block cannot
    execute (not whole warps or warpgroups: `collective.launch_error`), else None."""
    unit = op.ENTRY.collective
    if not unit or kernel is None:
        return None
    threads = kernel.thread_dims()
    message = collective.launch_error(op.name, unit, threads)
    return None if message is None else (message, collective.launch_hint(unit, threads))
