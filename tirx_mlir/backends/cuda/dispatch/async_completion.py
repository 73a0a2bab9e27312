"""Completing a ``copy_async`` that the program does not wait for (cp.async, variant ldgsts).

The tile level's ``copy_async`` is complete when the op returns (the tile interpreter copies at
once); TIRx leaves the cp.async commit/wait to the program, and a program that manages its
groups (``ptx.cp_async_commit_group`` / ``wait_group`` / ``wait_all``) keeps doing so. A
program that never does would read a tile before its copies land. So before a tile op that
touches a shared buffer a cp.async wrote, with no cp.async commit or wait since, dispatch
inserts ``cp.async.wait_all`` and ``__syncthreads`` (every thread's copies have landed and are
visible to the CTA): the meaning the tile interpreter gives. In a K loop that is the wait and
barrier ``cuda-pipeline-k-loop`` drops when it turns the copies into a multi-stage ring.

The search walks back from the op through its block and the blocks around it (ops nested in
earlier ops included) to the kernel's entry; a cp.async issued later in a loop body than a
reader at the body's top (the next iteration's) is not followed: such a program waits itself.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.ir import Operation, SSAValue

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


def _written_buffer(op: PtxOp) -> SSAValue | None:
    """The shared buffer a cp.async writes (its destination's ``cuda.address``)."""
    addr = op.args[0].owner if op.args else None
    return addr.memory if isinstance(addr, cuda.AddressOp) else None


def unwaited_cp_async(op: TileOp) -> bool:
    """Whether a cp.async into a shared buffer ``op`` touches precedes it with no cp.async
    commit or wait in between (module docstring)."""
    touched = {resolve_access(v).buffer for v in op.operands
               if is_buffer(v) and scope_of(v) in SHARED_SCOPES}
    if not touched or isinstance(op, CopyAsyncOp):
        return False
    node: Operation | None = op
    while node is not None and not isinstance(node, KernelOp):
        prev = node.prev_op
        while prev is not None:
            for inner in reversed(list(prev.walk())):
                if not isinstance(inner, PtxOp):
                    continue
                if inner.ENTRY.name in GROUP_ROWS:
                    return False
                if inner.ENTRY.name in ISSUE_ROWS and _written_buffer(inner) in touched:
                    return True
            prev = prev.prev_op
        node = node.parent_op()
    return False


def complete_cp_async(b: Builder) -> None:
    """``cp.async.wait_all`` then ``__syncthreads``."""
    b.insert(ptx("cp_async_wait_all", []))
    b.insert(SyncThreadsOp())
