"""The liveness-based allocator of on-chip memories, for every backend.

Given the `MemorySpace` of each scope it allocates (a backend builds them from its target's
limits), `allocate_kernel` gives every ``tirx.alloc`` in one of those scopes an address, its byte
offset inside each row of the memory, in the space's ``address_attr``. It

* computes each buffer's **live range** over the kernel body in program order: from its first use
  to its last use (through views), where a use inside a region (a loop body) that the allocation
  is outside of counts as a use of the whole region: a buffer used in a loop is live for the whole
  loop, every iteration;
* places buffers, largest first, at the lowest address that does not overlap a buffer whose live
  range intersects theirs, so memory whose lifetime has ended is **reused**;
* rounds sizes and addresses to the space's unit (alignment, granule) and keeps its reserve free;
* fails at compile time, at the kernel, with the numbers when a kernel does not fit: bytes needed
  vs available per row, the buffers live at the peak and those it could not place;
* records the kernel's footprint (bytes per row in use) in the space's ``footprint_attr``.

Allocations that already carry an address keep it. `AllocatePass` is the base of a backend's
allocation pass: it says which memories a kernel has and which allocations it accepts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Iterable

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError, format_location
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, allocs, is_view_op
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.memory_space import MemorySpace, round_up


@dataclass
class Buffer:
    """One allocation: its size per row (rounded to the allocation unit), its live range in
    program positions (inclusive), the alignment its address needs beyond the space's unit
    (1: none) and, once placed, its address."""

    alloc: AllocOp
    size: int
    start: int
    end: int
    addr: int | None = None
    align: int = 1

    @property
    def name(self) -> str:
        hint = self.alloc.result.name_hint
        return f"%{hint or '?'} {self.alloc.result.type} ({self.size} B)"

    def overlaps(self, other: "Buffer") -> bool:
        return self.start <= other.end and other.start <= self.end


class ProgramOrder:
    """Program order of every op of a kernel: pre-order index, and the last index inside each
    op's regions."""

    def __init__(self, kernel: Operation):
        self.pos: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        self._number(kernel)

    def _number(self, op: Operation) -> int:
        pos, end = self.pos, self.end
        pos[op] = last = len(pos)
        for region in op.regions:
            for block in region.blocks:
                inner = block._first_op  # noqa: SLF001 - the ops by their links (`ir_walk`)
                while inner is not None:
                    if inner.regions:
                        last = self._number(inner)
                    else:  # a leaf: its own end
                        pos[inner] = end[inner] = last = len(pos)
                    inner = inner._next_op  # noqa: SLF001
        end[op] = last
        return last


def users(alloc: AllocOp) -> list[Operation]:
    """Ops that read or write the buffer, directly or through views."""
    out: list[Operation] = []
    stack = [alloc.result]
    while stack:
        value = stack.pop()
        for use in value.uses:
            if is_view_op(use.operation) and use.index == 0:
                stack.append(use.operation.results[0])
            else:
                out.append(use.operation)
    return out


def _lift(op: Operation, block: Block | None) -> Operation | None:
    """The ancestor of ``op`` (or op) that sits directly in ``block``."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def live_range(alloc: AllocOp, order: ProgramOrder,
               users_of: Callable[[AllocOp], list[Operation]] = users) -> tuple[int, int]:
    """From the first use to the last use (memory is undefined before its first write, so the
    allocation's own position does not matter); a use inside a region the allocation is
    outside of covers the whole region. ``users_of`` finds the uses (default `users`; a backend
    whose code addresses buffers through computed addresses follows those too)."""
    block = alloc.parent_block()
    spans = []
    for user in users_of(alloc):
        lifted = _lift(user, block)
        if lifted is None:  # used outside the allocation's block: live to the end of the block
            assert block is not None and block.last_op is not None
            lifted = block.last_op
        spans.append((order.pos[lifted], order.end[lifted]))
    if not spans:
        return order.pos[alloc], order.pos[alloc]
    return min(s for s, _ in spans), max(e for _, e in spans)


def place(buffers: list[Buffer], capacity: int, unit: int) -> list[Buffer]:
    """First fit, largest first, addresses in multiples of ``unit`` (and of each buffer's own
    ``align``) below ``capacity``; buffers that already have an address keep it. Returns the
    buffers that did not fit."""
    placed = [b for b in buffers if b.addr is not None]
    failed: list[Buffer] = []
    for buf in sorted((b for b in buffers if b.addr is None), key=lambda b: (-b.size, b.start)):
        busy = sorted((b.addr, b.addr + b.size) for b in placed  # type: ignore[operator]
                      if b.overlaps(buf))
        step = math.lcm(unit, buf.align)
        addr = 0
        for lo, hi in busy:
            if addr + buf.size <= lo:
                break
            addr = max(addr, round_up(hi, step))
        if addr + buf.size > capacity:
            failed.append(buf)
            continue
        buf.addr = addr
        placed.append(buf)
    return failed


def peak(buffers: list[Buffer]) -> tuple[int, list[Buffer]]:
    """The largest total size of simultaneously live buffers, and those buffers."""
    best, best_set = 0, []
    for point in sorted({b.start for b in buffers}):
        live = [b for b in buffers if b.start <= point <= b.end]
        total = sum(b.size for b in live)
        if total > best:
            best, best_set = total, live
    return best, best_set


AllocCheck = Callable[[AllocOp, BufferType, MemorySpace], None]
"""A backend's rule for what may be allocated (raises PassError), e.g. only physical tiles."""


@dataclass(frozen=True)
class FailureReport:
    """How a backend's allocation failure reads: its error code and its hint."""

    code: str = "ALLOC"
    hint: str = "use smaller buffers, shorten buffer lifetimes, or loop over blocks"

    def error(self, kernel: KernelOp, space: MemorySpace, buffers: list[Buffer],
              failed: list[Buffer]) -> PassError:
        """The error raised when ``failed`` could not be placed (a backend may word it in its
        memory's terms by overriding this)."""
        return failure(kernel, space, buffers, failed, self)


def allocate_kernel(kernel: KernelOp, spaces: Iterable[MemorySpace],
                    check: AllocCheck | None = None,
                    report: FailureReport = FailureReport()) -> dict[str, int]:
    """Give every allocation of the kernel in one of ``spaces`` an address; returns the
    footprint (bytes per row in use) of each space, and records it where the space says.
    Raises PassError, at the kernel, when a memory does not fit."""
    by_scope = {space.scope: space for space in spaces}
    order = ProgramOrder(kernel)
    pools: dict[str, list[Buffer]] = {scope: [] for scope in by_scope}
    for alloc in allocs(kernel):
        btype = alloc.result.type
        assert isinstance(btype, BufferType)
        space = by_scope.get(btype.scope_name)
        if space is None:
            continue
        if check is not None:
            check(alloc, btype, space)
        start, end = live_range(alloc, order)
        fixed = alloc.attributes.get(space.address_attr)
        pools[space.scope].append(Buffer(
            alloc, space.allocated_bytes(btype), start, end,
            None if fixed is None else int(fixed.value.data)))  # type: ignore[attr-defined]
    footprints: dict[str, int] = {}
    for scope, buffers in pools.items():
        space = by_scope[scope]
        failed = place(buffers, space.capacity, space.unit)
        if failed:
            raise report.error(kernel, space, buffers, failed)
        changes = current_changes()
        for buf in buffers:
            buf.alloc.attributes[space.address_attr] = IntegerAttr(buf.addr, i64)
            changes.changed(buf.alloc, inside=False)  # its attribute: the ops reading it are
            # reached through its views (`verification._attribute_readers`)
        footprints[scope] = max((b.addr + b.size for b in buffers), default=0)  # type: ignore
        if space.footprint_attr is not None:
            kernel.attributes[space.footprint_attr] = IntegerAttr(footprints[scope], i64)
            changes.changed(kernel, inside=False)
    return footprints


def failure(kernel: KernelOp, space: MemorySpace, buffers: list[Buffer], failed: list[Buffer],
            report: FailureReport = FailureReport()) -> PassError:
    """The error of a kernel whose buffers do not fit in ``space``: what it needs at its peak
    and what is available, the buffers live at the peak, those that could not be placed."""
    need, live = peak(buffers)
    where = format_location(live[0].alloc) if live else "?"
    source = f" ({space.source})" if space.source else ""
    lines = [f"kernel @{kernel.kernel_name} does not fit in {space.scope}: it needs "
             f"{need} bytes{space.per_row()} at its peak (buffers live together, first "
             f"allocated at {where}) but {space.capacity} are available{source}"]
    if need <= space.capacity:
        lines[0] += "; the live buffers fit in total but not without fragmentation"
    lines.append("live at the peak: " + ", ".join(b.name for b in
                                                  sorted(live, key=lambda b: -b.size)))
    lines.append("could not place: " + ", ".join(b.name for b in failed))
    return PassError("\n".join(lines), kernel, code=report.code, hint=report.hint)


@dataclass(frozen=True)
class AllocatePass(ModulePass):
    """Base of a backend's allocation pass: `allocate_kernel` on every kernel of the module
    with the memories `memory_spaces` gives for it. A subclass (a frozen dataclass, whose fields
    are its options) sets ``name`` and ``report`` and may override `check`."""

    report: ClassVar[FailureReport] = FailureReport()
    REPORTS_CHANGES: ClassVar[bool] = True  # `allocate_kernel` reports what it sets

    def memory_spaces(self, module: ModuleOp, kernel: KernelOp) -> Iterable[MemorySpace]:
        raise NotImplementedError

    def check(self, alloc: AllocOp, btype: BufferType, space: MemorySpace) -> None:
        """Reject an allocation the backend cannot place (default: accept all)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            allocate_kernel(kernel, self.memory_spaces(op, kernel), self.check, self.report)
