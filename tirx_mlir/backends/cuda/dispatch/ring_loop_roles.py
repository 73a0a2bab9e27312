"""Ring loops that hold the consumers' register code: split by role, and a GEMM whose wait can
wait for the next GEMM's.

A flash-attention forward loop reads K and V blocks from pipelined TMA rings (tma_ring.py) and,
between its two ``gemm_async``, computes the online softmax on register tiles (elementwise ops,
row reductions, casts). Lowered in place, every thread of the CTA steps through that loop: the
producer warpgroup runs the softmax on registers nobody reads, and its TMA issue waits for the
iteration its threads have reached. With one loop per role (transforms/split_roles.py) the
producer's loop holds only its ring copies, so it runs ahead of the consumers by the ring's
stages, and only the consumers compute.

A loop qualifies (`register_ring_loop`) when, in the program as written, its body holds at its top
level only region-free ops without effects (views, ``arith``), copies into pipelined rings by the
TMA (no ``cta_mask``: multicast rings keep their cluster protocol; no mixed group), cta-scope
``gemm_async`` reading a stage of a pipelined ring, and tile ops whose buffer operands are all
``local`` tiles *held by the consumer warpgroups only* (`_consumer_held`: a layout numbering its
threads by ``tx``, ``warpid`` or ``wgid`` below the consumers' count; a tile every warpgroup holds
a copy of, or the producer holds part of, keeps the loop whole), at least one of those (a loop of
ring copies and GEMMs only is wgmma_in_flight.py's), in a CTA whose producer has a warpgroup of
its own; no op of the body holds a region. Then no thread of the producer's warpgroup holds an
element those ops write, so leaving them out of its loop changes nothing it computes, and nothing
in them waits for the producer (their barriers, if a variant emits any, make
transforms/split_roles.py keep the loop whole: it accepts only register code besides the roles'
blocks).

Dispatch tags such a loop ``cuda.split_roles`` and each role's ``scf.if`` with its role
(`tag`); wgmma_in_flight.py's loops (ring copies and one GEMM) are tagged there.

*A deferred wait* (`deferred`, `retired_by`). A GEMM of such a loop waits with
``wgmma.wait_group 0`` right after its commit, except one whose group may stay in flight until
the next GEMM's wait: an accumulating GEMM ``G`` whose shared operands are all stages of
pipelined rings of two or more stages (A in registers or a ring stage), such that, going on
from ``G`` through the end of the body and around from its start (the next iteration), the ops
before the next GEMM ``G2`` touch neither ``G``'s accumulator nor its register A, and ``G2``
neither (it writes another accumulator and does not accumulate: it waits with
``wait_group 0``, which retires ``G``'s group too). ``G`` then commits without a wait and
leaves its stage pending (wgmma_in_flight.py's register per barrier pair); ``G2``, after its
wait, releases it; after the loop a drain waits (``wait_group 0``) and releases the last one
before anything reads the accumulator. In the flash-attention loop that is O += P V of block j,
in flight while the consumers loop back, wait for block j + 1's K stage and issue S = Q K^T;
S's wait retires both. Keeping S in flight too would need the softmax of block j (reading S
registers) to overlap S of block j + 1, two S accumulators and the loop rotated (FlashAttention
3's intra-warpgroup pipelining), which the tile program does not say; so S waits at once.

*One proxy fence.* A GEMM operand that generic stores write (Q copied once by ``tirx.copy``;
a Q loaded by the TMA is a one-shot load, tma_one_shot.py, and needs no fence) needs
``fence.proxy.async`` between those writes and the wgmma. When none of its writers is in the
loop (`written_before`: the program as written), every thread fences once right before the loop
(`fence_before`) instead of the consumers before every wgmma: the writes were ordered before it
by their copy's CTA barrier, and nothing in the loop writes the tile again.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.dispatch.wgmma_in_flight import CONSUMER_ROLE, MIN_STAGES, ROLE, SPLIT
from tirx_mlir.backends.cuda.layout.async_defaults import is_tma_copy
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition
from tirx_mlir.backends.cuda.layout.roles import WARPGROUP, consumer_warpgroups, warpgroups
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import NotAView, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.tile_base import TileOp

PRODUCER_ROLE = "producer"
"""The role of a ring copy's ``scf.if`` (wgmma_in_flight.py names the consumers' and the
drain's)."""
__all__ = ["CONSUMER_ROLE", "PRODUCER_ROLE", "deferred", "fence_before", "register_ring_loop",
           "retired_by", "tag", "written_before"]


def register_ring_loop(ctx, op) -> scf.ForOp | None:
    """The ``scf.for`` directly around ``op`` (a ring copy or a gemm_async) when it qualifies
    (module docstring), else None. Decided once per kernel on the program as written."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp):
        return None
    return loop if _decided(ctx)[0].get(loop, False) else None


def _decided(ctx) -> tuple[dict, dict, dict]:
    """(loop -> whether it qualifies, deferred gemm_async -> the one whose wait retires it,
    qualifying loop -> the allocs its tile ops write),
    decided once per kernel, at the first question, on the program as written (the
    copies and GEMMs of a loop ask while it is being lowered). A tile op that dispatch lowers
    before that question (one placed above the loop's first ring copy or GEMM) is no longer a
    tile op then, so its loop stays whole: correct, not split."""
    key = "ring_loop_roles"
    if key not in ctx.shared_state:
        loops = {candidate: _qualifies(ctx, candidate)
                 for candidate in ctx.kernel.walk() if isinstance(candidate, scf.ForOp)}
        deferrals: dict = {}
        written: dict = {}
        for loop, ok in loops.items():
            if ok:
                deferrals.update(_loop_deferrals(ctx, loop))
                written[loop] = {_base(v) for op in loop.walk() if isinstance(op, TileOp)
                                 for name, v in op.named_operands().items() if name in op.DSTS}
        ctx.shared_state[key] = (loops, deferrals, written)
    return ctx.shared_state[key]


def tag(loop: scf.ForOp, guard: scf.IfOp, role: str) -> None:
    """Tag ``loop`` for transforms/split_roles.py and ``guard`` (a role's ``scf.if`` in its
    body) with ``role``."""
    loop.attributes[SPLIT] = UnitAttr()
    guard.attributes[ROLE] = StringAttr(role)


def _qualifies(ctx, loop: scf.ForOp) -> bool:
    kernel = ctx.kernel
    consumers = consumer_warpgroups(kernel)
    if loop.results or warpgroups(kernel) < 2 or consumers >= warpgroups(kernel):
        return False
    gemms = copies = registers = 0
    for op in loop.body.block.ops:
        if isinstance(op, scf.YieldOp):
            continue
        if op.regions:
            return False
        if isinstance(op, T.CopyAsyncOp):
            if not _ring_copy(ctx, op):
                return False
            copies += 1
        elif isinstance(op, T.GemmAsyncOp):
            if not _ring_gemm(ctx, op):
                return False
            gemms += 1
        elif isinstance(op, TileOp):
            if not _register_op(op, consumers):
                return False
            registers += 1
        elif not ring_.pure_loop_op(op):
            return False
    return gemms > 0 and copies > 0 and registers > 0  # without registers: wgmma_in_flight.py's


def _ring_copy(ctx, op) -> bool:
    view = ring_.stage_view(op.dst)
    return isinstance(view, ring_.StageView) and ring_.pipelined(ctx, view.alloc) and \
        is_tma_copy(op) and ring_.ring_writers(ctx, view.alloc) is None and \
        ring_.ring_group(ctx, view.alloc) is None


def _ring_gemm(ctx, op) -> bool:
    if op.exec_scope.value != "cta":
        return False
    shared = [v for v in (op.a, op.b) if v.type.scope_name in SHARED_SCOPES]
    views = [ring_.stage_view(v) for v in shared]
    return any(isinstance(v, ring_.StageView) and ring_.pipelined(ctx, v.alloc) for v in views)


def _register_op(op: TileOp, consumers: int) -> bool:
    buffers = [v for v in op.operands if isinstance(v.type, BufferType)]
    return bool(buffers) and all(_consumer_held(v, consumers) for v in buffers)


def _consumer_held(value: SSAValue, consumers: int) -> bool:
    """Whether ``value`` is a local tile whose layout gives elements to consumer threads only
    (threads ``0 .. 128 * consumers - 1``)."""
    btype = value.type
    if not isinstance(btype, BufferType) or btype.scope_name != LOCAL:
        return False
    layout = btype.get_layout()
    if layout is None:
        return False
    try:
        threads = RegisterPartition(layout, btype.get_shape()).threads
    except PartitionError:
        return False
    limits = {"tx": WARPGROUP * consumers, "warpid": WARPGROUP // 32 * consumers,
              "wgid": consumers}
    numbered = [axis for axis in limits if axis in threads]
    # the span counts the layout's offset on the axis (threads starting at warp 4 are not
    # the first warpgroup's)
    return len(numbered) == 1 and layout.span(numbered[0]) <= limits[numbered[0]]


def written_before(ctx, alloc: SSAValue, loop: scf.ForOp) -> bool:
    """Whether no tile op inside ``loop`` writes ``alloc``, in the program as written."""
    return alloc not in _decided(ctx)[2].get(loop, set())


def fence_before(ctx, loop: scf.ForOp) -> None:
    """``fence.proxy.async.shared::cta`` right before ``loop`` (once per loop; every thread)."""
    done = ctx.shared_state.setdefault("ring_loop_fences", set())
    if loop in done:
        return
    done.add(loop)
    loop.parent_block().insert_op_before(ptx("fence_proxy_async", [], space="shared::cta"), loop)


def deferred(ctx, op) -> bool:
    """Whether ``op`` (a gemm_async) commits without a wait, its group retired by the wait of
    the next GEMM of its loop (module docstring)."""
    return op in _deferrals(ctx)


def retired_by(ctx, op) -> list[tuple[int, ring_.StageView]]:
    """(pending slot, stage view) of each pipelined stage, one per barrier pair and stage in
    gemm_async.py's order, of the deferred GEMMs whose group ``op``'s wait retires."""
    return [(slot, view) for gemm, retiring in _deferrals(ctx).items() if retiring is op
            for slot, view in enumerate(pending_views(ctx, gemm))]


def pending_views(ctx, gemm) -> list[ring_.StageView]:
    """A GEMM's pipelined stage views, one per barrier pair and stage (gemm_async.py's
    ``synced`` order: the slots of its pending registers)."""
    found: dict = {}
    for value in (gemm.a, gemm.b):
        if value.type.scope_name not in SHARED_SCOPES:
            continue
        view = ring_.stage_view(value)
        if isinstance(view, ring_.StageView) and ring_.pipelined(ctx, view.alloc):
            found.setdefault((ring_.barrier_key(ctx, view.alloc), view.stage), view)
    return list(found.values())


def _deferrals(ctx) -> dict:
    return _decided(ctx)[1]


def _loop_deferrals(ctx, loop: scf.ForOp) -> dict:
    body = [op for op in loop.body.block.ops if not isinstance(op, scf.YieldOp)]
    gemms = [op for op in body if isinstance(op, T.GemmAsyncOp)]
    found = {}
    for gemm in gemms:
        if not _deferrable(ctx, gemm):
            continue
        at = body.index(gemm)
        after = body[at + 1:] + body[:at]  # on through the next iteration
        nxt = next((op for op in after if isinstance(op, T.GemmAsyncOp)), None)
        if nxt is None or nxt.flag("accum"):
            continue
        held = _held(gemm)
        between = after[:after.index(nxt) + 1]
        if not any(_base(v) in held for op in between for v in op.operands):
            found[gemm] = nxt
    return found


def _deferrable(ctx, gemm) -> bool:
    if not gemm.flag("accum") or gemm.exec_scope.value != "cta":
        return False
    for value in (gemm.a, gemm.b):
        if value.type.scope_name == LOCAL:
            continue
        view = ring_.stage_view(value)
        if not isinstance(view, ring_.StageView) or view.stages < MIN_STAGES or \
                not ring_.pipelined(ctx, view.alloc):
            return False
    return gemm.b.type.scope_name != LOCAL


def _held(gemm) -> set:
    """The allocs of the registers ``gemm``'s group in flight owns: C, and A in registers."""
    return {_base(v) for v in (gemm.c, gemm.a) if v.type.scope_name == LOCAL}


def _base(value: SSAValue):
    if not isinstance(value.type, BufferType):
        return None
    try:
        return resolve_access(value).buffer
    except NotAView:
        return None
