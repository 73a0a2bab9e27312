"""The leading ``__syncthreads`` of code that overwrites a shared tile some threads of the CTA
may still be reading (or writing) for earlier tile ops that no CTA-wide barrier ended.

The tile level runs ops in program order over whole tiles. Most variants end with their scope's
barrier (common.py `cuda_variant`), and a CTA-scope op that writes shared memory after other
work also starts with ``__syncthreads``, so a write never overtakes an earlier access. Two
kinds of earlier access are not ordered before every thread's later writes by such a barrier:

* a ``gemm_async`` (wgmma): its wgmmas end with no barrier; the consumer warpgroups retire
  them with ``wgmma.wait_group`` (a drain after their loop included), threads of other
  warpgroups (a TMA producer) do not wait for that;
* an op narrower than the CTA (warp, warpgroup or thread scope, in a CTA of more threads than
  one instance): it ends with ``__syncwarp``, its warpgroup's named barrier or nothing, which
  does not order other warps' accesses. Composite ops (``binary_reduce``, ``unary_reduce``,
  ``binary_chain``) keep their scope in the ops they decompose into, which are dispatched,
  and recorded, in turn.

A write of such a tile that does not come from a CTA-scope variant's leading barrier, a
``copy_async`` (cp.async or TMA, outside a pipelined ring, whose stage protocol orders refills)
or a narrower op writing shared memory, starts with ``__syncthreads`` (`refill_barrier`) when
one of those accesses precedes it: in program order (those ops were dispatched already and
recorded what they touched: `note_reads`, `note_unordered`), or later in a loop around it
(still tile ops: they come after it in the loop body, so they ran in the previous iteration).
Not inside an ``scf.if`` for a narrower writer: its condition may hold in some warps only, and
a CTA barrier there would hang (the tile level gives sub-CTA ids no value, so such a branch is
the program's own warp specialisation, which orders its accesses itself).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.cuda.sync import SyncThreadsOp
from tirx_mlir.backends.cuda.layout.async_defaults import tile_uses
from tirx_mlir.backends.cuda.layout.defaults import scope_threads
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import NotAView, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope

READS_KEY = "cuda.shared_unordered_touches"
"""``shared_state`` key: the shared allocs earlier tile ops left touched without a CTA-wide
barrier after them."""


def _block_threads(ctx) -> int:
    return ctx.kernel.num_threads()


def narrower_than_cta(op, ctx) -> bool:
    """Whether ``op``'s scope barrier leaves other threads of the CTA unordered: its scope's
    instance has fewer threads than the block."""
    scope = op.exec_scope
    threads = _block_threads(ctx)
    return scope != ExecScope.CTA and scope_threads(scope, threads) < threads


def _shared_alloc(value: SSAValue) -> SSAValue | None:
    """The shared alloc buffer operand ``value`` views (None: not a shared buffer's view)."""
    if not isinstance(value.type, BufferType) or value.type.scope_name not in SHARED_SCOPES:
        return None
    try:
        return resolve_access(value).buffer
    except NotAView:
        return None


def shared_allocs(op) -> list[SSAValue]:
    """The shared allocs ``op``'s buffer operands view."""
    found = []
    for value in op.operands:
        base = _shared_alloc(value)
        if base is not None and base not in found:
            found.append(base)
    return found


def note_reads(ctx, allocs) -> None:
    """Record shared allocs a dispatched op (a ``gemm_async`` outside pipelined rings) may
    still be accessing when the code after it runs (module docstring)."""
    ctx.shared_state.setdefault(READS_KEY, set()).update(allocs)


def note_unordered(ctx, op) -> None:
    """Record the shared allocs of a dispatched op narrower than the CTA (module docstring)."""
    if narrower_than_cta(op, ctx):
        note_reads(ctx, shared_allocs(op))


def _unordered_toucher(op, ctx) -> bool:
    return isinstance(op, T.GemmAsyncOp) or narrower_than_cta(op, ctx)


def _under_if(op, kernel) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        if isinstance(parent, scf.IfOp):
            return True
        parent = parent.parent_op()
    return False


def needs_refill_barrier(ctx, op, alloc: SSAValue) -> bool:
    """Whether the write of ``alloc`` by ``op`` must start with ``__syncthreads`` (module
    docstring)."""
    kernel = ctx.kernel
    if op.exec_scope != ExecScope.CTA and _under_if(op, kernel):
        return False
    if alloc in ctx.shared_state.get(READS_KEY, ()):
        return True
    loops = []
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        if isinstance(parent, (scf.ForOp, scf.WhileOp)):
            loops.append(parent)
        parent = parent.parent_op()
    if not loops:
        return False
    others = [o for o, _ in tile_uses(kernel, alloc) if o is not op and _unordered_toucher(o, ctx)]
    return any(loop.is_ancestor(o) for loop in loops for o in others)


def refill_before_writes(ctx, b: Builder, op) -> bool:
    """`refill_barrier` for the shared allocs ``op`` writes (one barrier at most)."""
    for value in op.dst_operands():
        alloc = _shared_alloc(value)
        if alloc is not None and refill_barrier(ctx, b, op, alloc):
            return True
    return False


def refill_barrier(ctx, b: Builder, op, alloc: SSAValue) -> bool:
    """``__syncthreads`` before the code of ``op`` writing ``alloc`` when
    `needs_refill_barrier`; whether it inserted one."""
    if not needs_refill_barrier(ctx, op, alloc):
        return False
    b.insert(SyncThreadsOp())
    return True
