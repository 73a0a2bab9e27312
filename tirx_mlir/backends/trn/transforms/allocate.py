"""``trn-allocate``: SBUF and PSUM addresses with liveness-based reuse.

Every physical on-chip tile (``[P, F]`` after ``trn-lower-layout``) gets ``trn.addr``: its byte
offset inside each partition (the NKI printers emit it as ``mod_alloc(base_addr=...)`` /
``address=``). The allocator

* computes each buffer's **live range** over the kernel body in program order: from its first
  use to its last use, where a use inside a region (a loop body) that the allocation is outside
  of counts as a use of the whole region (a buffer used in a loop is live for the whole loop,
  every iteration);
* places buffers, largest first, at the lowest offset that does not overlap a buffer whose live
  range intersects theirs, so memory whose lifetime has ended is **reused** (TIRx's allocator
  never reuses);
* aligns SBUF buffers to ``align`` bytes and gives every PSUM buffer whole 2 KiB banks, starting
  at a bank boundary (matmul outputs must sit inside one bank);
* fails at compile time, at the kernel, with the numbers when a kernel does not fit: bytes needed
  vs available per partition and the buffers live at the peak.

The kernel records its footprint: ``trn.sbuf_bytes`` and ``trn.psum_bytes`` (bytes per
partition). Allocations that already carry ``trn.addr`` keep it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from tirx_mlir.backends.trn.dialects.nki.checks import ADDR_ATTR
from tirx_mlir.backends.trn.target_tags import kernel_limits
from tirx_mlir.backends.trn.layout.layouts import PSUM, SBUF, bytes_per_partition
from tirx_mlir.backends.trn.transforms.lower_layout import VIEW_OPS
from tirx_mlir.diagnostics import PassError, format_location
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, allocs
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels

SBUF_BYTES_ATTR = "trn.sbuf_bytes"
PSUM_BYTES_ATTR = "trn.psum_bytes"


@dataclass
class Buffer:
    alloc: AllocOp
    size: int          # bytes per partition (rounded to the allocation unit)
    start: int         # live range in program positions, inclusive
    end: int
    addr: int | None = None

    @property
    def name(self) -> str:
        hint = self.alloc.result.name_hint
        t = self.alloc.result.type
        return f"%{hint or '?'} {t} ({self.size} B)"

    def overlaps(self, other: "Buffer") -> bool:
        return self.start <= other.end and other.start <= self.end


class _Positions:
    """Program order of every op of a kernel: pre-order index, and the last index inside each
    op's regions."""

    def __init__(self, kernel: KernelOp):
        self.pos: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        self._number(kernel)

    def _number(self, op: Operation) -> int:
        self.pos[op] = last = len(self.pos)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    last = self._number(inner)
        self.end[op] = last
        return last


def _users(alloc: AllocOp) -> list[Operation]:
    """Ops that read or write the buffer, directly or through views."""
    out: list[Operation] = []
    stack = [alloc.result]
    while stack:
        value = stack.pop()
        for use in value.uses:
            if isinstance(use.operation, VIEW_OPS) and use.index == 0:
                stack.append(use.operation.results[0])
            else:
                out.append(use.operation)
    return out


def _lift(op: Operation, block: Block | None) -> Operation | None:
    """The ancestor of ``op`` (or op) that sits directly in ``block``."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def live_range(alloc: AllocOp, positions: _Positions) -> tuple[int, int]:
    """From the first use to the last use (memory is undefined before its first write, so the
    allocation's own position does not matter); a use inside a region the allocation is
    outside of covers the whole region."""
    block = alloc.parent_block()
    spans = []
    for user in _users(alloc):
        lifted = _lift(user, block)
        if lifted is None:  # used outside the allocation's block: live to the end of the block
            assert block is not None and block.last_op is not None
            lifted = block.last_op
        spans.append((positions.pos[lifted], positions.end[lifted]))
    if not spans:
        return positions.pos[alloc], positions.pos[alloc]
    return min(s for s, _ in spans), max(e for _, e in spans)


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


def place(buffers: list[Buffer], capacity: int, unit: int) -> list[Buffer]:
    """First fit, largest first; returns the buffers that did not fit."""
    placed = [b for b in buffers if b.addr is not None]
    failed: list[Buffer] = []
    for buf in sorted((b for b in buffers if b.addr is None), key=lambda b: (-b.size, b.start)):
        busy = sorted((b.addr, b.addr + b.size) for b in placed  # type: ignore[operator]
                      if b.overlaps(buf))
        addr = 0
        for lo, hi in busy:
            if addr + buf.size <= lo:
                break
            addr = max(addr, _round_up(hi, unit))
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


@dataclass(frozen=True)
class TrnAllocatePass(ModulePass):
    """Assign SBUF/PSUM byte offsets (``trn.addr``) reusing memory of dead buffers."""

    name = "trn-allocate"

    target: str | None = None
    align: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            lim = kernel_limits(kernel, self.target)
            positions = _Positions(kernel)
            pools: dict[str, list[Buffer]] = {SBUF: [], PSUM: []}
            for alloc in allocs(kernel):
                btype = alloc.result.type
                assert isinstance(btype, BufferType)
                if btype.scope_name not in pools:
                    continue
                if btype.get_layout() is not None or btype.rank != 2:
                    raise PassError(f"buffer {btype} is not a physical [P, F] tile; run "
                                    f"trn-lower-layout before trn-allocate", alloc)
                unit = lim.psum_bank_bytes if btype.scope_name == PSUM else self.align
                start, end = live_range(alloc, positions)
                fixed = alloc.attributes.get(ADDR_ATTR)
                pools[btype.scope_name].append(Buffer(
                    alloc, _round_up(bytes_per_partition(btype), unit), start, end,
                    None if fixed is None else int(fixed.value.data)))  # type: ignore[attr-defined]
            caps = {SBUF: (lim.sbuf_usable_bytes, self.align),
                    PSUM: (lim.psum_bytes_per_partition, lim.psum_bank_bytes)}
            for scope_name, buffers in pools.items():
                capacity, unit = caps[scope_name]
                failed = place(buffers, capacity, unit)
                if failed:
                    raise self._error(kernel, scope_name, buffers, failed, capacity, lim.source)
                for buf in buffers:
                    buf.alloc.attributes[ADDR_ATTR] = IntegerAttr(buf.addr, i64)
                footprint = max((b.addr + b.size for b in buffers), default=0)  # type: ignore
                attr = SBUF_BYTES_ATTR if scope_name == SBUF else PSUM_BYTES_ATTR
                kernel.attributes[attr] = IntegerAttr(footprint, i64)

    @staticmethod
    def _error(kernel: KernelOp, scope_name: str, buffers: list[Buffer], failed: list[Buffer],
               capacity: int, source: str) -> PassError:
        need, live = peak(buffers)
        where = format_location(live[0].alloc) if live else "?"
        lines = [f"kernel @{kernel.kernel_name} does not fit in {scope_name}: it needs "
                 f"{need} bytes per partition at its peak (buffers live together, first "
                 f"allocated at {where}) but {capacity} are available ({source})"]
        if need <= capacity:
            lines[0] += "; the live buffers fit in total but not without fragmentation"
        lines.append("live at the peak: " + ", ".join(b.name for b in
                                                      sorted(live, key=lambda b: -b.size)))
        lines.append("could not place: " + ", ".join(b.name for b in failed))
        return PassError("\n".join(lines), kernel, code="TRN-ALLOC",
                         hint="use smaller tiles, shorten buffer lifetimes, or loop over blocks")
