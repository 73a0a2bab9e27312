"""The wait of a TMA load that is not a stage of a pipelined ring (tma_ring.py): who waits for
its ``full`` mbarrier, once, right after the issue.

The tile level's copy is complete when the op returns, so in general every thread of the CTA
waits for the load's phase right after the issuing thread armed the barrier and issued the
boxes. A *one-shot* load is the common case the ring protocol does not cover: a tile filled once
before a loop and read in every iteration (flash attention's Q, read by each ``S = Q K^T``
of the KV loop). Its barrier completes one phase (phase 0) in the whole kernel, and the wait
for it is the only one: outside the loop, never per iteration.

When the only reads of that tile are cta-scope ``gemm_async`` in a CTA whose TMA producer has a
warpgroup of its own, the readers are the consumer warpgroups (gemm_async.py), so only they
wait (`consumers_only`): the producer's thread goes on at once to the ring copies after it
(flash attention's first K and V blocks are issued while Q is in flight, not after it lands).
That holds only for a load that runs once (its op directly in the kernel's body, the tile's
only writer): a load that runs again would re-arm the barrier from a thread that never waited
for its previous phase.

A load that may overwrite a tile a ``gemm_async`` read before it (a one-shot tile reloaded per
outer step, ``for i { load A_i; for k { C += A_i B_ik } }``, or between two K loops) follows
wgmmas that end with no barrier (the consumers retire them with ``wgmma.wait_group``, the
producer thread does not wait for that), so the load, TMA or cp.async, starts with
``__syncthreads`` (shared_refill.py `refill_barrier`), after which every consumer's wait that
retires them (a drain after its loop included) has run. The GEMMs before it in program order
were dispatched already and noted what they read (`shared_refill.note_reads`); those after it
in a loop around it are still tile ops. The same holds for a tile that ops narrower than the
CTA touched before (shared_refill.py).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.layout.async_defaults import tile_uses
from tirx_mlir.backends.cuda.layout.roles import consumer_warpgroups
from tirx_mlir.dialects.tirx import tile_ops as T


def consumers_only(ctx, op, alloc: SSAValue) -> bool:
    """Whether only the consumer warpgroups wait for the load ``op`` into ``alloc`` (module
    docstring), decided on the program as written (the readers are not dispatched yet: they
    come after the load in program order)."""
    kernel = ctx.kernel
    if ring_.producer_warpgroup(kernel) is None or op.parent_block() is not kernel.body.block:
        return False
    uses = tile_uses(kernel, alloc)
    writers = [o for o, name in uses if name in o.DSTS]
    readers = [o for o, name in uses if name not in o.DSTS]
    return writers == [op] and bool(readers) and all(
        isinstance(o, T.GemmAsyncOp) and o.exec_scope.value == "cta" for o in readers)


def wait(ctx, b: Builder, op, ring: ring_.StageView, full: SSAValue, stage: SSAValue,
         multicast: bool) -> None:
    """Wait for the phase the load ``op`` completes on ``full`` (the address of its stage's
    barrier): every thread, or the consumer warpgroups only (`consumers_only`; not for a
    multicast load, whose CTAs meet at a cluster barrier before the issue)."""
    at = b
    if not multicast and consumers_only(ctx, op, ring.alloc):
        # the guard gemm_async's consumers run under (warpgroup < consumers): tested on the
        # thread index instead, ptxas lost the uniform datapath of the consumers' split loop
        # after it (32 more SASS instructions a KV block in the flash example, bench/README.md)
        wg = common.ThreadIds(b)["wgid"]
        limit = ring_.const(b, consumer_warpgroups(ctx.kernel), IndexType())
        at = ring_.emit_if(b, b.insert(arith.CmpiOp(wg, limit, "ult")).result)
    parity = ring_.use_parity(ctx, at, ring, ring_.CONSUMER, stage)
    ring_.wait_parity(at, full, parity)
    if at is not b:
        ring_.close_if(at)
