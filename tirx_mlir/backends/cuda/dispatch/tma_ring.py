"""The mbarrier protocol between TMA copies into a ring of shared stage tiles and the wgmma
GEMMs that read them: the producer/consumer split the TMA and wgmma variants share.

A *ring* is a shared ``tirx.alloc`` ``[stages..., rows, cols]`` whose tiles a program fills
with ``copy_async`` (forced to ``tma_auto``) and reads with ``gemm_async``; a tile-level
program writes nothing else about it: stage ``s`` is the view ``ring[s]`` (a slice, reshaped to
the tile), and program order is the meaning (the tile interpreter completes every op in turn).
The CUDA lowering splits the CTA by role:

* the **producer** is one thread (layout/roles.py `producer_thread`: thread 0 of the last
  warpgroup when the CTA has several, else thread 0); for each copy into stage ``s`` it waits until the stage is
  *empty* (``empty[s]``, parity = its use count's parity, flipped: a fresh barrier's previous
  phase counts as complete), arms ``full[s]`` with the copy's bytes
  (``mbarrier.arrive.expect_tx``) and issues the TMA boxes, which complete on ``full[s]``;
* the **consumers** (roles.py `consumer_warpgroups`: every other warpgroup, or the only one) wait until
  stage ``s`` is *full* (parity = its use count's parity), run their wgmma, wait for it
  (``wgmma.wait_group 0``; in a K loop ``wgmma.wait_group 1``, which retires the previous K
  step's group, whose stage is released then: wgmma_in_flight.py) and arrive on
  ``empty[s]`` once per consumer warp (after a
  ``__syncwarp``, lane 0 arrives for the warp: the barrier's count is the consumer warps, as
  CUTLASS's pipelines count warpgroups rather than threads; 32x fewer arrivals, which a
  multicast ring sends to other CTAs of the cluster), once per stage tile even when a GEMM
  reads it as both operands (``X @ X^T``).

Use counts are per thread and per stage: one bit per stage in a private ``local`` i32 per ring
and role (flipped at each use), so any loop structure works as long as every thread of a role
runs every op (uniform control flow), which the tile level guarantees. The barriers are private
``shared`` i64 arrays ``[stages]`` per ring (``full``: count 1, ``empty``: the consumer warp
count), initialised by thread 0 at kernel entry.

This holds when the ring's readers are all ``gemm_async`` and its writers all TMA copies, or
all cta-scope cp.async copies (``dispatch "ldgsts"``) in a CTA with a producer warpgroup of its
own, and the readers sit in the same loops and branches as the writers (`pipelined`;
`same_control`): the protocol pairs each fill of a stage with one read of it, so a tile
filled once before a loop and read by every iteration (flash attention's Q) would have its
consumers wait, in the second iteration, for a phase no copy completes. Otherwise the TMA copy
completes before the next op (every thread waits on ``full[s]`` right after the issue: a
one-shot load's phase 0, once, before the loop that reads it), a cp.async copy before the op
that reads it (async_completion.py), and the ring is reused as any shared buffer is (the
dispatch pass's barriers order a write after earlier reads).

*cp.async producers.* A cp.async copy into a pipelined ring is issued by the producer
warpgroup (`producer_warpgroup`: the TMA producer's), its 128 threads sharing the tile's
16-byte chunks; each waits until the stage is empty, issues its chunks and arrives with
``cp.async.mbarrier.arrive.noinc`` on ``full[s]`` (the arrival fires when its copies have
landed; ``noinc``: it is one of the barrier's counted arrivals), so ``full[s]`` counts 128 per
cp.async copy (`fill_arrivals`). The consumers fence the generic-proxy writes for wgmma's
async proxy (``fence.proxy.async``) after their wait.

*Mixed rings* (`RingGroup`): the pipelined rings one ``gemm_async`` reads at one stage, when a
cp.async copy fills one of them (A by TMA, B by cp.async), share one ``full``/``empty`` pair
per stage, as CUTLASS's one pipeline for A and B: ``full[s]`` counts every copy's arrivals
(the TMA issuer's ``arrive.expect_tx``, which also adds its bytes, plus 128 per cp.async copy:
129 for one of each), ``empty[s]`` the consumers, who wait and release once per stage. The
producer warpgroup waits for the stage to be empty once, at the group's first copy in program
order (every producer thread, whichever copy it takes part in), and flips one use bit. It
needs one copy per ring, all in one block at the same stage of rings of as many stages, and no
multicast; rings that do not fit keep a pair each (correct, one more wait per stage).

A *multicast* ring (some of its copies have ``config {cta_mask}``, tma_multicast.py) is
filled by groups of CTAs together: the CTAs of a copy's mask each issue a share of the stage
into the same stage of all of them. So a stage may be refilled only when the consumers of
every CTA that *writes into it* have released it. The writers of a CTA's stages
(`stage_writers`) are the union of its groups over the ring's copies (a plain copy's group is
the CTA itself): a ring filled by a copy multicast along the cluster's rows and one along its
columns is written by the CTA's row and column; by a multicast copy and a plain one, by the
multicast group. The relation is symmetric (CTA ``q`` writes into ``r``'s stages when ``r``
writes into ``q``'s), so each consumer warp arrives on ``empty[s]`` of every CTA that wrote
its stage (lane ``p`` for CTA ``p``, the remote arrivals of a warp issued together; ``mapa`` +
``mbarrier.arrive.shared::cluster``, the default .release.cta, predicated on the rank when the
writers differ by CTA), whose count is the consumer warps times the writers
(the same for every CTA, else an error), and each CTA's producer waits on its own ``empty[s]``
as without multicast. Each producer arms its own ``full[s]`` with the bytes of its copy into
the stage, the whole tile (a peer's share may land first: the transaction count goes negative
until then). Barriers are initialised before a cluster barrier (no peer arrives on them, nor
completes bytes, before they exist), and the kernel ends with one (no CTA exits while a peer
may still arrive on its barriers).

A copy's ``cta_mask`` may be known only at run time (its ``cta_mask`` operand): then the
writers are computed at kernel entry, in every thread, into a private ``local`` i32 (`writers`:
the static groups' bits for the rank, or-ed with each run-time mask), the ``empty`` barriers
count the consumer warps times its popcount (per CTA: groups of different sizes work), and
a consumer arrives on the ``empty[s]`` of each CTA whose bit it holds. For that the mask is
recomputed at kernel entry from its definition, which may use only constants, ``arith`` and
the cluster and CTA ids (`_clone_mask`; a mask from a loop variable or memory is an error at
the copy). The masks must still partition the cluster (the program's promise, as outside a
ring).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import cluster_masks
from tirx_mlir.backends.cuda.layout.async_defaults import is_tma_copy, tile_uses
from tirx_mlir.backends.cuda.dialects.cuda.checks import WARP_SIZE as WARP
from tirx_mlir.backends.cuda.layout.roles import WARPGROUP, consumer_warpgroups, producer_thread
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, NotAView, materialize, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import ClusterIdOp, CtaIdOp, KernelOp
from tirx_mlir.dispatch import fail

PRODUCER, CONSUMER = "producer", "consumer"


@dataclass(frozen=True)
class StageView:
    """A view that is one whole stage tile of a shared alloc: the alloc, its stage count, the
    tile shape and the stage index (affine in SSA index values)."""

    alloc: SSAValue
    stages: int
    tile: tuple[int, int]
    stage: IndexExpr

    @property
    def tile_elements(self) -> int:
        return self.tile[0] * self.tile[1]


def stage_view(view: SSAValue) -> StageView | str:
    """The stage tile ``view`` is (its non-unit dims are the alloc's last two, whole), or the
    reason it is not one."""
    try:
        pattern = resolve_access(view)
    except NotAView as err:
        return str(err)
    base = pattern.buffer
    btype = base.type
    if not isinstance(base.owner, AllocOp) or not isinstance(btype, BufferType) or \
            btype.scope_name not in SHARED_SCOPES or btype.rank < 2:
        return "the shared side must be a view of a shared tirx.alloc of rank 2 or more"
    *lead, rows, cols = btype.get_shape()
    dims = [(n, s) for n, s in zip(pattern.sizes, pattern.flat_steps()) if n != 1]
    if dims != [(n, s) for n, s in ((rows, cols), (cols, 1)) if n != 1]:  # unit dims dropped
        return (f"the shared view must be one whole [{rows}, {cols}] tile of its "
                f"{list(btype.get_shape())} buffer (a stage: buffer[s])")
    flat = pattern.flat_offset()
    per = rows * cols
    if flat.const % per or any(c % per for _, c in flat.terms):
        return "the shared view must start on a tile boundary of its buffer"
    stage = IndexExpr(flat.const // per, tuple((v, c // per) for v, c in flat.terms))
    stages = 1
    for n in lead:
        stages *= n
    return StageView(base, stages, (rows, cols), stage)


def pipelined(ctx, alloc: SSAValue) -> bool:
    """Whether the ring ``alloc`` follows the producer/consumer protocol: TMA copies write it,
    gemm_async reads it, nothing else touches it. Decided once per kernel, on the program as
    the user wrote it (before its first op is dispatched)."""
    return _decided(ctx, alloc)[0]


def ring_writers(ctx, alloc: SSAValue) -> tuple[int, ...] | None:
    """`stage_writers` of a pipelined ring (None for any other), decided with `pipelined`."""
    return _decided(ctx, alloc)[1]


def runtime_masks(kernel: KernelOp, alloc: SSAValue) -> tuple[SSAValue, ...]:
    """The ``cta_mask`` operands (masks known only at run time) of the copies into ``alloc``."""
    return tuple(op.cta_mask for op, name in tile_uses(kernel, alloc)
                 if name in op.DSTS and getattr(op, "cta_mask", None) is not None)


def ring_masks(ctx, alloc: SSAValue) -> tuple[SSAValue, ...]:
    """`runtime_masks` of a pipelined ring (empty for any other), decided with `pipelined`."""
    return _decided(ctx, alloc)[2]


def ring_writer_ops(ctx, alloc: SSAValue) -> tuple:
    """The tile ops that write ``alloc`` in the program as written (decided with
    `pipelined`)."""
    return _decided(ctx, alloc)[4]


def _decided(ctx, alloc: SSAValue) -> tuple[bool, tuple[int, ...] | None, tuple, int, tuple]:
    known = ctx.shared_state.setdefault("tma_ring_pipelined", {})
    _groups(ctx)  # decided on the program as written, with every ring's ops still there
    ring_loops(ctx)
    if alloc not in known:
        ok = _pipelined(ctx.kernel, alloc)
        writers = tuple(op for op, name in tile_uses(ctx.kernel, alloc) if name in op.DSTS)
        known[alloc] = (ok, stage_writers(ctx.kernel, alloc) if ok else None,
                        runtime_masks(ctx.kernel, alloc) if ok else (),
                        fill_arrivals(ctx.kernel, writers[0]) if ok else 1, writers)
    return known[alloc]


def ring_loops(ctx) -> dict:
    """``scf.for`` -> whether its body, as the program was written, holds at its top level
    only region-free ops (views, arith), copies into stages of pipelined rings and one
    ``gemm_async``: a K loop of rings and a GEMM (wgmma_in_flight.py asks, after the copies
    were dispatched). Decided once per kernel, with `pipelined`."""
    key = "tma_ring_loops"
    if key not in ctx.shared_state:
        ctx.shared_state[key] = {
            loop: all(_ring_loop_op(ctx.kernel, op) for op in loop.body.block.ops) and
            sum(isinstance(op, T.GemmAsyncOp) for op in loop.body.block.ops) == 1
            for loop in ctx.kernel.walk() if isinstance(loop, scf.ForOp)}
    return ctx.shared_state[key]


def _ring_loop_op(kernel: KernelOp, op: Operation) -> bool:
    if isinstance(op, T.GemmAsyncOp):
        return True
    if isinstance(op, T.CopyAsyncOp):
        view = stage_view(op.dst)
        return isinstance(view, StageView) and _pipelined(kernel, view.alloc)
    return pure_loop_op(op) and not isinstance(op, T.TileOp)


def pure_loop_op(op: Operation) -> bool:
    """Region-free and without effects (``arith`` included: integer division here is by the
    constants dispatch built, and the op ran on every thread before the split too): what a K
    loop that keeps a wgmma group in flight may hold besides its ring copies and its GEMM, and
    what transforms/split_roles.py can move into both roles' loops (one test for both, so a loop
    dispatch keeps in flight is one the split accepts)."""
    return not op.regions and (op.dialect_name() == "arith" or is_side_effect_free(op))


def _pipelined(kernel: KernelOp, alloc: SSAValue) -> bool:
    uses = tile_uses(kernel, alloc)
    writers = [op for op, name in uses if name in op.DSTS]
    readers = [op for op, name in uses if name not in op.DSTS]
    tma = all(is_tma_copy(op) for op in writers)
    cp_async = all(is_cp_async_copy(op) and op.exec_scope.value == "cta" for op in writers) \
        and producer_warpgroup(kernel) is not None
    return bool(writers) and bool(readers) and (tma or cp_async) and \
        all(isinstance(op, T.GemmAsyncOp) for op in readers) and \
        len({op.exec_scope for op in readers}) == 1 and same_control(writers, readers)


def same_control(writers: list[Operation], readers: list[Operation]) -> bool:
    """Whether the regions (loop bodies, branches) around the readers are those around the
    writers: each loop or branch holding a read of the ring holds a fill of it and the other
    way round, so that fills and reads of a stage alternate as the protocol pairs them (a tile
    filled before a loop and read in it is a one-shot load: module docstring)."""
    return _regions(writers) == _regions(readers)


def _regions(ops: list[Operation]) -> set[Region]:
    found: set[Region] = set()
    for op in ops:
        region = op.parent_region()
        while region is not None and not isinstance(region.parent_op(), KernelOp):
            found.add(region)
            parent = region.parent_op()
            region = parent.parent_region() if parent is not None else None
    return found


def is_cp_async_copy(op) -> bool:
    """A copy_async forced to cp.async (``dispatch "ldgsts"``)."""
    return isinstance(op, T.CopyAsyncOp) and op.dispatch is not None and \
        op.dispatch.data == "ldgsts"


def producer_warpgroup(kernel: KernelOp) -> int | None:
    """The warpgroup whose threads issue a pipelined ring's cp.async copies (the TMA
    producer's, roles.py), or None when the CTA has no warpgroup of its own for it."""
    start = producer_thread(kernel)
    return start // WARPGROUP if start else None


def fill_arrivals(kernel: KernelOp, op) -> int:
    """The arrivals a copy into a pipelined ring makes on the stage's ``full`` barrier: the
    TMA issuer's ``arrive.expect_tx``, or each producer thread's
    ``cp.async.mbarrier.arrive.noinc``."""
    return WARPGROUP if is_cp_async_copy(op) else 1


# --- mixed rings: one full/empty pair per stage for the tiles of several allocs --------------------


@dataclass(frozen=True)
class RingGroup:
    """Pipelined rings that share one ``full``/``empty`` barrier pair per stage (module
    docstring, mixed rings): the allocs (the first names the barriers), the copy that acquires
    a stage (the first in program order) and the full barrier's arrivals per phase."""

    allocs: tuple[SSAValue, ...]
    first_writer: Operation
    arrivals: int

    @property
    def leader(self) -> SSAValue:
        return self.allocs[0]


def ring_group(ctx, alloc: SSAValue) -> RingGroup | None:
    """The mixed group ``alloc`` belongs to, or None (its own barrier pair)."""
    return _groups(ctx).get(alloc)


def barrier_key(ctx, alloc: SSAValue) -> SSAValue:
    """The alloc whose barriers (and use bits) the ring ``alloc`` uses."""
    group = ring_group(ctx, alloc)
    return alloc if group is None else group.leader


def _groups(ctx) -> dict:
    """alloc -> its `RingGroup`, decided once per kernel (on the program as written): the
    pipelined rings one gemm_async reads together at one stage, when a cp.async copy writes
    one of them, every one has one writer, the writers are in one block at that stage, the
    stage counts agree and no copy multicasts; other rings keep a pair each."""
    key = "tma_ring_groups"
    if key in ctx.shared_state:
        return ctx.shared_state[key]
    ctx.shared_state[key] = {}  # while deciding: `pipelined` asks here
    kernel = ctx.kernel
    parent: dict = {}

    def find(a):
        while parent.setdefault(a, a) is not a:
            a = parent[a]
        return a

    for op in kernel.walk():
        if not isinstance(op, T.GemmAsyncOp):
            continue
        views = [stage_view(v) for v in (op.a, op.b) if v.type.scope_name in SHARED_SCOPES]
        views = [v for v in views if isinstance(v, StageView) and pipelined(ctx, v.alloc)]
        for v in views[1:]:
            parent[find(v.alloc)] = find(views[0].alloc)
    members: dict = {}
    for a in parent:
        members.setdefault(find(a), []).append(a)
    groups: dict = {}
    for allocs in members.values():
        group = _group(ctx, allocs)
        if group is not None:
            groups.update({a: group for a in group.allocs})
    ctx.shared_state[key] = groups
    return groups


def _group(ctx, allocs: list) -> RingGroup | None:
    kernel = ctx.kernel
    if len(allocs) < 2:
        return None
    writers = []
    for a in allocs:
        ops = [op for op, name in tile_uses(kernel, a) if name in op.DSTS]
        if len(ops) != 1 or ring_writers(ctx, a) is not None:
            return None
        writers.append(ops[0])
    if not any(is_cp_async_copy(op) for op in writers):
        return None
    views = [stage_view(op.dst) for op in writers]
    block = writers[0].parent_block()
    if any(not isinstance(v, StageView) for v in views) or \
            len({(v.stages, v.stage.const, frozenset(v.stage.terms)) for v in views}) != 1 or \
            any(op.parent_block() is not block for op in writers):
        return None
    order = {op: i for i, op in enumerate(block.ops)}
    writers.sort(key=order.__getitem__)
    allocs = [v.alloc for v in sorted(views, key=lambda v: allocs.index(v.alloc))]
    return RingGroup(tuple(allocs), writers[0],
                     sum(fill_arrivals(kernel, op) for op in writers))


def stage_writers(kernel: KernelOp, alloc: SSAValue) -> tuple[int, ...] | None:
    """Per cluster rank, the bit set of the CTAs that write into its stages of the ring
    ``alloc`` (module docstring); None when none of its copies multicasts."""
    masks = [op.config_dict().get("cta_mask") for op, name in tile_uses(kernel, alloc)
             if name in op.DSTS]
    cluster = kernel.cluster_dims()
    runtime = runtime_masks(kernel, alloc)
    if cluster is None or (all(m is None for m in masks) and not runtime):
        return None
    cluster = tuple(cluster)
    writers = [1 << r for r in range(math.prod(cluster))]
    for mask in masks:
        if mask is not None:
            groups = cluster_masks.cluster_groups(mask, cluster)
            writers = [w | m for w, m in zip(writers, groups.masks)]
    counts = sorted({bin(w).count("1") for w in writers})
    if len(counts) > 1 and not runtime:  # with run-time masks each CTA counts its own
        fail(f"the CTAs of the cluster have {' or '.join(map(str, counts))} writers into the "
             f"stages of this ring (the union of their cta_mask groups); its empty barriers "
             f"count the consumers of the writers, so every CTA needs as many")
    return tuple(writers)


def consumer_threads(kernel: KernelOp, alloc: SSAValue) -> int:
    """The threads that read a pipelined ring's stages: the consumer warpgroups' for
    cta-scope readers, every thread for warpgroup-scope ones."""
    scopes = {op.exec_scope.value for op, name in tile_uses(kernel, alloc) if name not in op.DSTS}
    if scopes == {"cta"} and kernel.num_threads() >= WARPGROUP:
        return consumer_warpgroups(kernel) * WARPGROUP
    return kernel.num_threads()


def consumer_arrivals(kernel: KernelOp, alloc: SSAValue, ctas: int = 1) -> int:
    """The arrivals on a pipelined ring's ``empty`` barriers per phase: one per consumer warp
    (`release`), of each of the ``ctas`` CTAs that write into a stage of a multicast ring."""
    return -(-consumer_threads(kernel, alloc) // WARP) * ctas


# --- IR ------------------------------------------------------------------------------------------


def const(b: Builder, value: int, t=i32) -> SSAValue:
    return b.insert(arith.ConstantOp(IntegerAttr(value, t))).result


def thread_id(b: Builder) -> SSAValue:
    """``cuda.thread_idx x``, built here (init code runs before any hoisted id)."""
    return b.insert(cuda.ThreadIdxOp(dim="x")).result


def emit_if(b: Builder, cond: SSAValue) -> Builder:
    """``scf.if cond { ... }``: a builder at the end of its then-block."""
    block = Block()
    b.insert(scf.IfOp(cond, [], Region(block)))
    inner = Builder(InsertPoint.at_end(block))
    return inner


def close_if(inner: Builder) -> None:
    inner.insert(scf.YieldOp())


def shared_address(b: Builder, buffer: SSAValue, index: int | SSAValue) -> SSAValue:
    """The 32-bit shared-window address of ``buffer[index]`` (flat physical index)."""
    idx = const(b, index, IndexType()) if isinstance(index, int) else index
    return b.insert(cuda.AddressOp.build(operands=[buffer, idx], result_types=[i32])).result


def wait_parity(b: Builder, bar: SSAValue, parity: SSAValue, **mods: str) -> None:
    """Spin until the phase of ``parity`` of the mbarrier at ``bar`` has completed (``mods``:
    the wait's ``sem``/``scope``, e.g. acquire at cluster scope)."""
    before = Block()
    bb = Builder(InsertPoint.at_end(before))
    ready = bb.insert(ptx("mbarrier_try_wait_parity", [bar, parity], space="shared",
                          **mods)).results[0]
    true = bb.insert(arith.ConstantOp(IntegerAttr(1, 1))).result
    waiting = bb.insert(arith.XOrIOp(ready, true)).result
    bb.insert(scf.ConditionOp(waiting))
    after = Block()
    after.add_op(scf.YieldOp())
    b.insert(scf.WhileOp([], [], Region(before), Region(after)))


@dataclass(frozen=True)
class RingBarriers:
    """The private ``full`` and ``empty`` mbarrier arrays of one ring (``empty`` only for a
    pipelined ring)."""

    full: SSAValue
    empty: SSAValue | None
    stages: int
    writers: tuple[int, ...] | None = None
    """Per rank, the CTAs that write into its stages (`stage_writers`); None: itself only."""
    runtime: SSAValue | None = None
    """With run-time masks: the private ``local`` i32 holding this CTA's writer bits, the
    static ones or-ed with the masks (module docstring)."""


def ring_barriers(ctx, ring: StageView) -> RingBarriers:
    """The ring's barriers (allocated and initialised by thread 0 once per kernel; those of
    its mixed group when it has one)."""
    key = barrier_key(ctx, ring.alloc)
    with_empty = pipelined(ctx, ring.alloc)
    btype = BufferType((ring.stages,), i64, "shared")
    writers = ring_writers(ctx, ring.alloc)
    masks = ring_masks(ctx, ring.alloc) if writers is not None else ()
    runtime = None
    if masks:
        assert writers is not None
        runtime = ctx.alloc_private(("tma_ring_writers", ring.alloc),
                                    BufferType((1,), i32, "local"),
                                    lambda b, reg: _store_writers(b, reg, writers, masks))
    ctas = 1 if writers is None else bin(writers[0]).count("1")
    counts = {"full": full_count(ctx, ring.alloc),
              "empty": consumer_arrivals(ctx.kernel, ring.alloc, ctas)}

    def init(kind: str):
        def build(b: Builder, bars: SSAValue) -> None:
            zero = const(b, 0, IndexType())
            first = b.insert(arith.CmpiOp(thread_id(b), zero, "eq")).result
            inner = emit_if(b, first)
            if kind == "empty" and runtime is not None:  # per CTA: consumers x its writers
                count = _runtime_count(inner, runtime, len(writers),
                                       consumer_arrivals(ctx.kernel, ring.alloc))
            else:
                count = const(inner, counts[kind])
            for s in range(ring.stages):
                inner.insert(ptx("mbarrier_init", [shared_address(inner, bars, s), count],
                                 space="shared"))
            inner.insert(ptx("fence_mbarrier_init", []))
            close_if(inner)
            b.insert(cuda.SyncThreadsOp() if writers is None else cuda.SyncClusterOp())
        return build

    full = ctx.alloc_private(("tma_ring_full", key), btype, init("full"))
    empty = ctx.alloc_private(("tma_ring_empty", key), btype, init("empty")) \
        if with_empty else None
    if writers is not None:
        _cluster_barrier_at_exit(ctx)
    return RingBarriers(full, empty, ring.stages, writers, runtime)


def full_count(ctx, alloc: SSAValue) -> int:
    """The arrivals per phase of the ring's ``full`` barriers: its group's, the fill of a
    pipelined ring (`fill_arrivals`, the same for each of its copies), else 1 (the issuer)."""
    group = ring_group(ctx, alloc)
    if group is not None:
        return group.arrivals
    return _decided(ctx, alloc)[3]


def _store_writers(b: Builder, reg: SSAValue, writers: tuple[int, ...],
                   masks: tuple[SSAValue, ...]) -> None:
    """This CTA's writer bits (static groups or-ed with the run-time masks, recomputed here at
    kernel entry) into the private register ``reg``."""
    bits = cluster_masks.by_rank(b, writers, i32)
    clones: dict = {}
    for mask in masks:
        value = _clone_mask(b, mask, clones)
        bits = b.insert(arith.OrIOp(bits, b.insert(arith.IndexCastOp(value, i32)).result)).result
    b.insert(cuda.StoreOp.build(operands=[reg, const(b, 0, IndexType()), bits]))


MASK_OPS = (ClusterIdOp, CtaIdOp)
"""The non-``arith`` ops a run-time mask of a pipelined ring may be computed from."""


def check_recomputable(value: SSAValue, seen: set | None = None) -> None:
    """Fail unless ``value`` can be recomputed at kernel entry (`_clone_mask`)."""
    seen = set() if seen is None else seen
    if value in seen:
        return
    seen.add(value)
    owner = value.owner
    if not isinstance(owner, Operation) or owner.regions or not (
            isinstance(owner, MASK_OPS) or owner.dialect_name() == "arith"):
        what = "a loop or block argument" if not isinstance(owner, Operation) else owner.name
        fail(f"a cta_mask known only at run time in a pipelined TMA ring is recomputed at "
             f"kernel entry (its empty barriers count the writers there); this one depends on "
             f"{what}: compute it from constants, arith and tirx.cta_id / tirx.cluster_id")
    for v in owner.operands:
        check_recomputable(v, seen)


def _clone_mask(b: Builder, value: SSAValue, clones: dict) -> SSAValue:
    """``value`` recomputed at ``b`` (kernel entry) from its definition (`check_recomputable`
    held at the copy)."""
    if value in clones:
        return clones[value]
    owner = value.owner
    assert isinstance(owner, Operation)
    operands = [_clone_mask(b, v, clones) for v in owner.operands]
    mapper = dict(zip(owner.operands, operands))
    copy = b.insert(owner.clone(value_mapper=mapper))
    for old, new in zip(owner.results, copy.results):
        clones[old] = new
    return clones[value]


def _runtime_count(b: Builder, reg: SSAValue, ctas: int, per_cta: int) -> SSAValue:
    """``per_cta`` times the number of writer bits in the register ``reg`` (i32)."""
    bits = b.insert(cuda.LoadOp.build(operands=[reg, const(b, 0, IndexType())],
                                      result_types=[i32])).result
    total = b.insert(arith.AndIOp(bits, const(b, 1))).result
    for q in range(1, ctas):
        shifted = b.insert(arith.ShRSIOp(bits, const(b, q))).result  # bits >= 0: 16 of them
        total = b.insert(arith.AddiOp(total, b.insert(arith.AndIOp(shifted, const(b, 1))).result)
                         ).result
    return b.insert(arith.MuliOp(total, const(b, per_cta))).result


def _cluster_barrier_at_exit(ctx) -> None:
    """A cluster barrier before the kernel's ``tirx.return`` (once per kernel)."""
    if ctx.shared_state.setdefault("tma_ring_exit_barrier", False):
        return
    ctx.shared_state["tma_ring_exit_barrier"] = True
    end = ctx.kernel.body.block.last_op
    end.parent_block().insert_op_before(cuda.SyncClusterOp(), end)


def release(b: Builder, bars: RingBarriers, stage: SSAValue,
            when: SSAValue | None = None) -> None:
    """A consumer warp's arrival on ``empty[stage]``: its CTA's, or that of every CTA that
    writes into the stage of a multicast ring (module docstring). Called by every consumer
    thread; a ``__syncwarp`` orders the warp's reads of the stage before the lanes that
    arrive (lane 0, or lane ``p`` for CTA ``p``: a warp's remote arrivals go together).
    ``when`` (an i1 the same in the whole warp, or None for always): whether to arrive at all
    (wgmma_in_flight.py: a stage is pending release)."""
    empty = shared_address(b, bars.empty, stage)
    b.insert(cuda.SyncWarpOp(const(b, -1)))
    lane = b.insert(arith.RemUIOp(thread_id(b), const(b, WARP, IndexType()))).result
    if bars.writers is None:
        first = b.insert(arith.CmpiOp(lane, const(b, 0, IndexType()), "eq")).result
        if when is not None:
            first = b.insert(arith.AndIOp(first, when)).result
        first = emit_if(b, first)
        first.insert(ptx("mbarrier_arrive", [empty], space="shared"))
        close_if(first)
        return
    n = len(bars.writers)
    bits = None if bars.runtime is None else b.insert(cuda.LoadOp.build(
        operands=[bars.runtime, const(b, 0, IndexType())], result_types=[i32])).result
    for peer in range(n):
        # CTA `peer` writes into this CTA's stage iff this CTA writes into the peer's
        if bits is None:
            cond = cluster_masks.rank_in(b, bars.writers[peer], n)
        else:
            bit = b.insert(arith.AndIOp(b.insert(arith.ShRSIOp(bits, const(b, peer))).result,
                                        const(b, 1))).result
            cond = b.insert(arith.CmpiOp(bit, const(b, 0), "ne")).result
        mine = b.insert(arith.CmpiOp(lane, const(b, peer, IndexType()), "eq")).result
        for extra in (cond, when):
            if extra is not None:
                mine = b.insert(arith.AndIOp(mine, extra)).result
        at = emit_if(b, mine)
        remote = at.insert(ptx("mapa", [empty, const(at, peer)], type="u32")).results[0]
        # the default .release.cta, as CUTLASS's ClusterBarrier::arrive: the warp's reads of
        # the stage completed (the wgmma.wait_group that retired them), so the peer's refill
        # cannot overtake them, and .release.cluster costs a MEMBAR.ALL.GPU per arrival
        # (ptxas, sm_90a)
        at.insert(ptx("mbarrier_arrive", [remote], space="shared::cluster"))
        close_if(at)


def acquire(ctx, b: Builder, ring: StageView, stage: SSAValue) -> None:
    """A producer thread's wait until ``stage`` is empty (flipping its use bit)."""
    empty = shared_address(b, ring_barriers(ctx, ring).empty, stage)
    parity = use_parity(ctx, b, ring, PRODUCER, stage)
    wait_parity(b, empty, b.insert(arith.XOrIOp(parity, const(b, 1))).result)


def acquires_alone(ctx, op, alloc: SSAValue) -> bool | None:
    """Who waits for the stage of a pipelined ring before ``op`` fills it: True, the copy's
    issuing threads (a ring with its own barriers); False, nobody (a later copy of a mixed
    group: the group's first copy waited); None, the whole producer warpgroup before the
    copy (the group's first copy: every producer thread writes into the stage)."""
    group = ring_group(ctx, alloc)
    if group is None:
        return True
    return None if group.first_writer is op else False


def producer_block(ctx, b: Builder) -> Builder:
    """``if (threadIdx.x / 128 == producer warpgroup) { ... }``."""
    tx = b.insert(cuda.ThreadIdxOp(dim="x")).result
    wg = b.insert(arith.DivUIOp(tx, const(b, WARPGROUP, IndexType()))).result
    start = const(b, producer_warpgroup(ctx.kernel), IndexType())
    return emit_if(b, b.insert(arith.CmpiOp(wg, start, "eq")).result)


def use_parity(ctx, b: Builder, ring: StageView, role: str, stage: SSAValue) -> SSAValue:
    """The parity (i32) of this thread's current use of ``stage`` in ``role``, flipping its
    use bit (module docstring)."""
    reg = ctx.alloc_private(("tma_ring_phase", barrier_key(ctx, ring.alloc), role),
                            BufferType((1,), i32, "local"), _zero_register)
    zero = const(b, 0, IndexType())
    bits = b.insert(cuda.LoadOp.build(operands=[reg, zero], result_types=[i32])).result
    s32 = b.insert(arith.IndexCastOp(stage, i32)).result
    shifted = b.insert(arith.ShRSIOp(bits, s32)).result  # bits >= 0: fewer than 31 stages
    parity = b.insert(arith.AndIOp(shifted, const(b, 1))).result
    mask = b.insert(arith.ShLIOp(const(b, 1), s32)).result
    b.insert(cuda.StoreOp.build(operands=[reg, zero, b.insert(arith.XOrIOp(bits, mask)).result]))
    return parity


def _zero_register(b: Builder, reg: SSAValue) -> None:
    b.insert(cuda.StoreOp.build(operands=[reg, const(b, 0, IndexType()), const(b, 0)]))


def stage_index(b: Builder, ring: StageView) -> SSAValue:
    value = materialize(b, ring.stage)
    return const(b, value, IndexType()) if isinstance(value, int) else value
