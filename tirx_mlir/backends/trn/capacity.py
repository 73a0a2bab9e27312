"""Whether a kernel's on-chip buffers fit in SBUF and PSUM, said where a buffer is allocated.

Capacity is the user's problem, not the compiler's, so it is checked twice with the allocator's
own numbers (`tirx_mlir.transforms.allocate`: live ranges, the peak, the usable bytes of
`memory.memory_spaces`) and reported at the ``tirx.alloc`` that does not fit:

* by ``trn-default-layout``, on the user's buffers at tile level, each sized by its physical tile
  (`layouts.physical_shape`): when the buffers live together at some point need more than the
  usable bytes, no later pass can make them fit (dispatch only adds scratch tiles, layout
  lowering only pads), so the kernel fails before dispatch;
* by ``trn-allocate``, on every physical tile, when the placement fails.

SBUF figures are bytes per partition, usable = the target's bytes less its reserve (192 KiB less
16 KiB on NeuronCore-v2). PSUM figures are banks: each PSUM tile takes whole 2 KiB banks, 8 per
partition, and the message lists the tiles that hold them.
"""

from __future__ import annotations

from tirx_mlir.backends.trn.layout.layouts import effective_layout, physical_shape
from tirx_mlir.backends.trn.memory import PSUM, is_on_chip, memory_spaces
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, allocs
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.memory_space import MemorySpace
from tirx_mlir.transforms.allocate import (Buffer, FailureReport, ProgramOrder, live_range,
                                           peak)

CODE = "TRN-ALLOC"
HINT = "use smaller tiles, shorten buffer lifetimes, or loop over blocks"


def _banks(space: MemorySpace, nbytes: int) -> int:
    return -(-nbytes // space.granule)


def amount(space: MemorySpace, nbytes: int) -> str:
    """``"200000 B"`` in SBUF, ``"2 banks"`` in PSUM."""
    if space.scope != PSUM:
        return f"{nbytes} B"
    n = _banks(space, nbytes)
    return f"{n} bank{'s' if n != 1 else ''}"


def _name(buf: Buffer, space: MemorySpace) -> str:
    hint = buf.alloc.result.name_hint
    return f"%{hint or '?'} {buf.alloc.result.type} ({amount(space, buf.size)})"


def _available(space: MemorySpace) -> str:
    source = [space.source] if space.source else []
    if space.scope == PSUM:
        notes = "; ".join(["each PSUM tile takes whole banks", *source])
        return f"{_banks(space, space.capacity)} banks of {space.granule} bytes per partition " \
               f"({notes})"
    notes = "; ".join([f"{space.bytes_per_row} less {space.reserve} reserved"] * bool(
        space.reserve) + source)
    return f"{space.capacity} usable bytes per partition{f' ({notes})' if notes else ''}"


def capacity_error(kernel: KernelOp, space: MemorySpace, buffers: list[Buffer],
                   culprit: Buffer) -> PassError:
    """The error at ``culprit``'s allocation: what the kernel needs at its peak, which buffers
    are live there, and what the memory has."""
    need, live = peak(buffers)
    lines = [f"{_name(culprit, space)} does not fit in {space.scope}: kernel "
             f"@{kernel.kernel_name} needs "
             f"{amount(space, need) if space.scope == PSUM else f'{need} bytes per partition'}"
             f" at its peak but "
             f"{space.scope} has {_available(space)}"]
    if need <= space.capacity:
        lines[0] += "; the live buffers fit in total but not without fragmentation"
    lines.append("live at the peak: " + ", ".join(
        _name(b, space) for b in sorted(live, key=lambda b: (-b.size, b.start))))
    return PassError("\n".join(lines), culprit.alloc, code=CODE, hint=HINT)


class TrnFailureReport(FailureReport):
    """The allocator's failure, worded by `capacity_error` at the first buffer it could not
    place."""

    def error(self, kernel: KernelOp, space: MemorySpace, buffers: list[Buffer],
              failed: list[Buffer]) -> PassError:
        return capacity_error(kernel, space, buffers, failed[0])


def _tile_level_buffers(kernel: KernelOp, space: MemorySpace, partitions: int,
                        order: ProgramOrder) -> list[Buffer]:
    out = []
    for alloc in allocs(kernel):
        btype = alloc.result.type
        assert isinstance(btype, BufferType)
        if btype.scope_name != space.scope:
            continue
        p, f = physical_shape(effective_layout(btype, partitions))
        tile = btype.with_shape((p, f))  # BufferType((p, f), its element type, its scope)
        start, end = live_range(alloc, order)
        out.append(Buffer(alloc, space.allocated_bytes(tile), start, end))
    return out


def check_capacity(kernel: KernelOp, limits: TrnLimits) -> None:
    """Fail at the allocation that takes the kernel's live buffers past a memory's usable
    capacity (the buffer of that peak allocated last), before any pass relies on it fitting."""
    if not any(is_on_chip(a.result.type) for a in allocs(kernel)):
        return
    order = ProgramOrder(kernel)
    for space in memory_spaces(limits):
        buffers = _tile_level_buffers(kernel, space, limits.partitions, order)
        need, live = peak(buffers)
        if need > space.capacity:
            culprit = max(live, key=lambda b: order.pos[b.alloc])
            raise capacity_error(kernel, space, buffers, culprit)

