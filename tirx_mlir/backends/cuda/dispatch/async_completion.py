"""Completing a ``copy_async`` that the program does not wait for (cp.async, variant ldgsts).

The tile level's ``copy_async`` is complete when the op returns (the tile interpreter copies at
once); TIRx leaves the cp.async commit/wait to the program, and a program that manages its
groups (``ptx.cp_async_commit_group`` / ``wait_group`` / ``wait_all``) keeps doing so. A
program that never does would read a tile before its copies land. So before a tile op that
touches a shared buffer a cp.async wrote, with no cp.async commit or wait since, dispatch
inserts ``cp.async.wait_all`` and ``__syncthreads`` (every thread's copies have landed and are
visible to the CTA): the meaning the tile interpreter gives. In a K loop that is the wait and
barrier ``cuda-pipeline-k-loop`` drops when it turns the copies into a multi-stage ring.

*Pending* destinations at an op: the shared buffers cp.async ops wrote after the last commit
or wait, in program order from the kernel's entry: a region of an earlier op (loop or branch
body) counts whole, in order; inside a region, what precedes the op in that region and what
precedes the op owning the region (the other branches of an ``scf.if`` do not). A cp.async
issued later in a loop body than a reader at the body's top (the next iteration's) is not
followed: such a program waits itself.

`PendingScan` finds them in one forward walk per kernel and dispatch run (kept in the
dispatch context's ``shared_state``): dispatch visits tile ops in program order, each replaced
in place by its code before the next is visited, so the walk pauses before the op asked about
and resumes there, reading the replacement (its cp.async copies, an inserted wait) as it goes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from xdsl.builder import Builder
from xdsl.ir import Block, Operation, SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.cuda.sync import SyncThreadsOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dialects.tirx.tile_ops import CopyAsyncOp
from tirx_mlir.dispatch.builders import is_buffer, scope_of

ISSUE_ROWS = ("cp_async", "cp_async_zfill")
GROUP_ROWS = ("cp_async_commit_group", "cp_async_wait_group", "cp_async_wait_all")
STATE_KEY = "cuda.cp_async_pending_scan"


def _written_buffer(op: PtxOp) -> SSAValue | None:
    """The shared buffer a cp.async writes (its destination's ``cuda.address``)."""
    addr = op.args[0].owner if op.args else None
    return addr.memory if isinstance(addr, cuda.AddressOp) else None


@dataclass
class Effect:
    """What a stretch of code does to the pending set: whether it commits or waits
    (``cleared``), and the buffers it writes with cp.async after its last commit or wait."""

    cleared: bool = False
    added: set = field(default_factory=set)

    def apply(self, before: frozenset) -> frozenset:
        return frozenset(self.added) if self.cleared else before | self.added

    def then(self, later: Effect) -> None:
        """This effect followed by ``later``, in place."""
        if later.cleared:
            self.cleared, self.added = True, set(later.added)
        else:
            self.added |= later.added

    def record(self, op: Operation) -> None:
        if not isinstance(op, PtxOp):
            return
        if op.ENTRY.name in GROUP_ROWS:
            self.cleared, self.added = True, set()
        elif op.ENTRY.name in ISSUE_ROWS:
            self.added.add(_written_buffer(op))


class PendingScan:
    """The pending destinations at each tile op of one kernel, asked in program order."""

    def __init__(self, kernel: KernelOp):
        self.kernel = kernel
        self._target: Operation | None = None
        self._walk = self._regions(kernel, frozenset())

    def pending_at(self, op: Operation) -> frozenset | None:
        """The pending set right before ``op``; None when the walk has passed the end without
        meeting it (it was asked out of order)."""
        self._target = op
        return next(self._walk, None)

    def _regions(self, owner: Operation, before: frozenset) -> Iterator:
        """Walks ``owner``'s regions, each from ``before``; returns their effect in order."""
        total = Effect()
        for region in owner.regions:
            for block in region.blocks:
                total.then((yield from self._block(block, before)))
        return total

    def _block(self, block: Block, before: frozenset) -> Iterator:
        """Walks ``block``, pausing (yielding the pending set) whenever the next op is the
        target; re-reads the next op on resuming, as dispatch has replaced the target."""
        effect = Effect()
        done: Operation | None = None
        while True:
            op = block.first_op if done is None else done.next_op
            if op is None:
                return effect
            if op is self._target:
                yield effect.apply(before)
                continue
            effect.record(op)
            if op.regions:
                effect.then((yield from self._regions(op, effect.apply(before))))
            done = op


def _pending_scan(ctx) -> PendingScan:
    scan = ctx.shared_state.get(STATE_KEY)
    if scan is None or scan.kernel is not ctx.kernel:
        scan = ctx.shared_state[STATE_KEY] = PendingScan(ctx.kernel)
    return scan


def unwaited_cp_async(op: TileOp, ctx) -> bool:
    """Whether a cp.async into a shared buffer ``op`` touches is pending at ``op`` (module
    docstring)."""
    touched = {resolve_access(v).buffer for v in op.operands
               if is_buffer(v) and scope_of(v) in SHARED_SCOPES}
    if not touched or isinstance(op, CopyAsyncOp):
        return False
    pending = _pending_scan(ctx).pending_at(op)
    if pending is None:                     # asked out of program order: walk again
        ctx.shared_state.pop(STATE_KEY)
        pending = _pending_scan(ctx).pending_at(op) or frozenset()
    return not touched.isdisjoint(pending)


def complete_cp_async(b: Builder) -> SyncThreadsOp:
    """``cp.async.wait_all`` then ``__syncthreads`` (returned)."""
    b.insert(ptx("cp_async_wait_all", []))
    return b.insert(SyncThreadsOp())
