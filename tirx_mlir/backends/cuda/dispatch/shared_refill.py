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
A narrower writer inside an ``scf.if`` whose condition may differ between the CTA's warps
gets no barrier there (it would hang: only a CTA-uniform branch may hold a
``__syncthreads``); such a branch is the program's own warp specialisation, which orders its
accesses itself. A condition is CTA-uniform when it is computed (``arith``) from constants,
the kernel's arguments, CTA-level ids (``cta_id``, ``cluster_id``, ...), the induction
variables of loops with such bounds and elements of global buffers at such indices
(`cta_uniform`); a branch on the pass number, e.g. a reload skipped on some passes, does get
its barrier (without it the reload raced with the other warps' reads of the previous pass).

A recorded read is ordered before a write by a CTA-wide barrier after it: a
``__syncthreads`` dispatch placed (a refill barrier, a CTA-scope op's own barriers, the
completion of pending cp.async copies) or a ``tirx.cluster_sync``'s cluster barrier, placed
in a block that holds both the reading op and the writer (at any depth) after the read:
every execution of the read is then followed by the barrier before control reaches the
writer (`note_barrier`, `_separates`). A barrier inside a branch or a loop body after the
read does not separate a read before that ``scf.if``/loop (the branch may not be taken, the
loop may not run), and a barrier in a loop body does not separate the body's reads from a
write after the loop (``cuda-pipeline-k-loop`` moves a body's trailing barrier to the top of
each iteration, so none follows the last one's reads). Records of ``gemm_async``
and of ``copy_async`` are kept: a wgmma group or a copy may still be in flight at a barrier
(a consumer keeps a wgmma group in flight across its loop, wgmma_in_flight.py; a cp.async
lands at its wait). Barriers the input program wrote itself as ``cuda.sync_threads`` are not
seen (the tile level writes none but ``tirx.cluster_sync``).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda.sync import SyncThreadsOp
from tirx_mlir.backends.cuda.layout.async_defaults import tile_uses
from tirx_mlir.backends.cuda.layout.defaults import scope_threads
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx import kernel as K
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import NotAView, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS, LoadOp

READS_KEY = "cuda.shared_unordered_touches"
"""``shared_state`` key: per shared alloc, the reads (and writes) earlier tile ops left without
a CTA-wide barrier after them, each ``(block, barriers)``: the block that held the op (None:
kept whatever barrier follows) and how many barriers had been placed before it."""

BARRIERS_KEY = "cuda.shared_refill_barriers"
"""``shared_state`` key: the CTA-wide barrier ops dispatch placed, in program order
(`note_barrier`); one placed by a case the search then discarded is erased (no block)."""

_CTA_IDS = (K.CtaIdOp, K.ClusterIdOp, K.CtaIdInClusterOp, K.CtaIdInPairOp)


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


def note_reads(ctx, allocs, block: Block | None = None) -> None:
    """Record shared allocs a dispatched op (a ``gemm_async`` outside pipelined rings) may
    still be accessing when the code after it runs (module docstring). ``block``: the block
    holding the op when a CTA-wide barrier after it there ends its accesses; None: none does
    (the record is kept)."""
    entry = (block, len(ctx.shared_state.get(BARRIERS_KEY, ())))
    reads = ctx.shared_state.setdefault(READS_KEY, {})
    for alloc in allocs:
        reads.setdefault(alloc, []).append(entry)


def note_unordered(ctx, op) -> None:
    """Record the shared allocs of a dispatched op narrower than the CTA (module docstring):
    a ``copy_async``'s or ``gemm_async``'s kept whatever barrier follows (its copies or
    wgmmas may be in flight)."""
    if narrower_than_cta(op, ctx):
        block = None if isinstance(op, (T.CopyAsyncOp, T.GemmAsyncOp)) else op.parent_block()
        note_reads(ctx, shared_allocs(op), block)


def note_barrier(ctx, barrier) -> None:
    """A CTA-wide barrier op dispatch placed (``__syncthreads``, a cluster barrier): the reads
    recorded before it, in blocks it follows them in, are ordered before what comes after it
    (module docstring). Read when it is committed (its block is the kernel's then)."""
    ctx.shared_state.setdefault(BARRIERS_KEY, []).append(barrier)


def _inside(block: Block, outer: Block) -> bool:
    """Whether ``block`` is ``outer`` or nested in one of its ops."""
    node: Block | None = block
    while node is not None:
        if node is outer:
            return True
        region = node.parent
        op = region.parent if region is not None else None
        node = op.parent if op is not None else None
    return False


def _unseparated(ctx, alloc: SSAValue, writer: Block) -> bool:
    """Whether a recorded access of ``alloc`` has no CTA-wide barrier between it and a write
    in block ``writer`` (module docstring)."""
    entries = ctx.shared_state.get(READS_KEY, {}).get(alloc)
    if not entries:
        return False
    barriers = ctx.shared_state.get(BARRIERS_KEY, ())
    return any(block is None or not any(_separates(bar, block, writer)
                                        for bar in barriers[seen:])
               for block, seen in entries)


def _separates(barrier, block: Block, writer: Block) -> bool:
    """Whether committed ``barrier``, placed after an access in ``block``, follows it on every
    path to a write in ``writer``: both blocks lie in the barrier's block. (A barrier in a
    loop body ends the body's reads for the body's later writes, not for a write after the
    loop: `cuda-pipeline-k-loop` replaces a body's trailing barrier by one at the top of each
    iteration, which no iteration runs after the last.)"""
    where = barrier.parent_block()
    return where is not None and where.parent is not None and _inside(block, where) and \
        _inside(writer, where)


def _unordered_toucher(op, ctx) -> bool:
    return isinstance(op, T.GemmAsyncOp) or narrower_than_cta(op, ctx)


def cta_uniform(value: SSAValue, kernel, memo: dict | None = None) -> bool:
    """Whether ``value`` is the same in every thread of a CTA (module docstring): built by
    ``arith`` from constants, scalar kernel arguments, CTA-level ids, the induction
    variables of ``scf.for`` loops with such bounds and ``tirx.load`` of a global buffer (a
    kernel argument or a view of one) at such indices. Anything else (per-thread ids, values
    loaded from shared or local memory, loop-carried values) is not proven uniform."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    memo[value] = False  # a cycle (a loop-carried value) is not proven
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if owner is kernel:
            found = True  # a scalar argument, or a global buffer (the same in every thread)
        elif isinstance(owner, scf.ForOp) and value.index == 0:
            found = all(cta_uniform(v, kernel, memo) for v in (owner.lb, owner.ub, owner.step))
        else:
            found = False
    else:
        op = value.owner
        if isinstance(op, _CTA_IDS):
            found = True
        elif isinstance(op, VIEW_OPS) or (isinstance(op, LoadOp) and
                                          op.buffer.type.scope_name == "global"):
            found = all(cta_uniform(v, kernel, memo) for v in op.operands)
        elif op.dialect_name() == "arith" and not op.regions:
            found = all(cta_uniform(v, kernel, memo) for v in op.operands)
        else:
            found = False
    memo[value] = found
    return found


def _divergent(op, kernel) -> bool:
    """Whether ``op`` lies in an ``scf.if`` whose condition is not proven CTA-uniform
    (`cta_uniform`). Loops are not asked: a refill barrier in a loop whose bounds differ
    between warps would hang (the SIMT interpreter reports it), never race."""
    memo: dict = {}
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        if isinstance(parent, scf.IfOp) and not cta_uniform(parent.cond, kernel, memo):
            return True
        parent = parent.parent_op()
    return False


def needs_refill_barrier(ctx, op, alloc: SSAValue) -> bool:
    """Whether the write of ``alloc`` by ``op`` must start with ``__syncthreads`` (module
    docstring)."""
    kernel = ctx.kernel
    if op.exec_scope != ExecScope.CTA and _divergent(op, kernel):
        return False
    if _unseparated(ctx, alloc, op.parent_block()):
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
    note_barrier(ctx, b.insert(SyncThreadsOp()))
    return True
