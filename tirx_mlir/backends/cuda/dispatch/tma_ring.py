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
  (``wgmma.wait_group 0``) and arrive on ``empty[s]`` (every consumer thread: the barrier's
  count).

Use counts are per thread and per stage: one bit per stage in a private ``local`` i32 per ring
and role (flipped at each use), so any loop structure works as long as every thread of a role
runs every op (uniform control flow), which the tile level guarantees. The barriers are private
``shared`` i64 arrays ``[stages]`` per ring (``full``: count 1, ``empty``: the consumer thread
count), initialised by thread 0 at kernel entry.

This holds when the ring's readers are all ``gemm_async`` and its writers all TMA copies, all
multicast to the cluster or none (`pipelined`); otherwise the TMA copy completes before the
next op (every thread waits on ``full[s]`` right after the issue) and the ring is reused as any
shared buffer is (the dispatch pass's barriers order a write after earlier reads).

A *multicast* ring (its copies have ``config {cta_mask}``, tma_multicast.py) is filled by the
CTAs of the cluster together: box ``i`` of a stage is issued by the CTA of rank ``i % n`` into
the same stage of every CTA. So a stage may be refilled only when the consumers of every CTA
have released it: each consumer thread arrives on ``empty[s]`` of every CTA of the cluster
(``mapa`` + ``mbarrier.arrive.release.cluster.shared::cluster``), whose count is the
consumer threads times ``n``, and each CTA's producer waits on its own ``empty[s]`` as
without multicast. Each producer still arms its own ``full[s]`` with the whole stage's bytes
(a peer's box may land first: the transaction count goes negative until then). Barriers are
initialised before a cluster barrier (no peer arrives on them, nor completes bytes, before
they exist), and the kernel ends with one (no CTA exits while a peer may still arrive on its
barriers).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.layout.async_defaults import is_tma_copy, tile_uses
from tirx_mlir.backends.cuda.layout.roles import WARPGROUP, consumer_warpgroups
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, NotAView, materialize, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp

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
    if dims != [(rows, cols), (cols, 1)]:
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


def ring_ctas(ctx, alloc: SSAValue) -> int:
    """`multicast_ctas` of a pipelined ring (1 for any other), decided with `pipelined`."""
    return _decided(ctx, alloc)[1]


def _decided(ctx, alloc: SSAValue) -> tuple[bool, int]:
    known = ctx.shared_state.setdefault("tma_ring_pipelined", {})
    if alloc not in known:
        ok = _pipelined(ctx.kernel, alloc)
        known[alloc] = (ok, multicast_ctas(ctx.kernel, alloc) if ok else 1)
    return known[alloc]


def _pipelined(kernel: KernelOp, alloc: SSAValue) -> bool:
    uses = tile_uses(kernel, alloc)
    writers = [op for op, name in uses if name in op.DSTS]
    readers = [op for op, name in uses if name not in op.DSTS]
    masks = {str(op.config_dict().get("cta_mask")) for op in writers}
    return bool(writers) and bool(readers) and len(masks) == 1 and \
        all(is_tma_copy(op) for op in writers) and \
        all(isinstance(op, T.GemmAsyncOp) for op in readers) and \
        len({op.exec_scope for op in readers}) == 1


def multicast_ctas(kernel: KernelOp, alloc: SSAValue) -> int:
    """The CTAs that fill a pipelined ring together: the cluster's when its copies multicast
    (module docstring), else 1."""
    writers = [op for op, name in tile_uses(kernel, alloc) if name in op.DSTS]
    cluster = kernel.cluster_dims()
    if cluster is None or not any("cta_mask" in op.config_dict() for op in writers):
        return 1
    n = 1
    for c in cluster:
        n *= c
    return n


def consumer_threads(kernel: KernelOp, alloc: SSAValue, ctas: int = 1) -> int:
    """The arrivals on a pipelined ring's ``empty`` barriers per phase: the consumer
    warpgroups' threads for cta-scope readers, every thread for warpgroup-scope ones; of
    each of the ``ctas`` CTAs that fill a multicast ring."""
    scopes = {op.exec_scope.value for op, name in tile_uses(kernel, alloc) if name not in op.DSTS}
    per_cta = kernel.num_threads()
    if scopes == {"cta"} and kernel.num_threads() >= WARPGROUP:
        per_cta = consumer_warpgroups(kernel) * WARPGROUP
    return per_cta * ctas


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
    ctas: int = 1
    """The CTAs whose consumers release a stage (`multicast_ctas`)."""


def ring_barriers(ctx, ring: StageView) -> RingBarriers:
    """The ring's barriers (allocated and initialised by thread 0 once per kernel)."""
    with_empty = pipelined(ctx, ring.alloc)
    btype = BufferType((ring.stages,), i64, "shared")
    ctas = ring_ctas(ctx, ring.alloc)
    counts = {"full": 1, "empty": consumer_threads(ctx.kernel, ring.alloc, ctas)}

    def init(kind: str):
        def build(b: Builder, bars: SSAValue) -> None:
            zero = const(b, 0, IndexType())
            first = b.insert(arith.CmpiOp(thread_id(b), zero, "eq")).result
            inner = emit_if(b, first)
            count = const(inner, counts[kind])
            for s in range(ring.stages):
                inner.insert(ptx("mbarrier_init", [shared_address(inner, bars, s), count],
                                 space="shared"))
            inner.insert(ptx("fence_mbarrier_init", []))
            close_if(inner)
            b.insert(cuda.SyncThreadsOp() if ctas == 1 else cuda.SyncClusterOp())
        return build

    full = ctx.alloc_private(("tma_ring_full", ring.alloc), btype, init("full"))
    empty = ctx.alloc_private(("tma_ring_empty", ring.alloc), btype, init("empty")) \
        if with_empty else None
    if ctas > 1:
        _cluster_barrier_at_exit(ctx)
    return RingBarriers(full, empty, ring.stages, ctas)


def _cluster_barrier_at_exit(ctx) -> None:
    """A cluster barrier before the kernel's ``tirx.return`` (once per kernel)."""
    if ctx.shared_state.setdefault("tma_ring_exit_barrier", False):
        return
    ctx.shared_state["tma_ring_exit_barrier"] = True
    end = ctx.kernel.body.block.last_op
    end.parent_block().insert_op_before(cuda.SyncClusterOp(), end)


def release(b: Builder, bars: RingBarriers, stage: SSAValue) -> None:
    """A consumer thread's arrival on ``empty[stage]``: its CTA's, or every CTA's of a
    multicast ring (module docstring)."""
    empty = shared_address(b, bars.empty, stage)
    if bars.ctas == 1:
        b.insert(ptx("mbarrier_arrive", [empty], space="shared"))
        return
    for rank in range(bars.ctas):
        peer = b.insert(ptx("mapa", [empty, const(b, rank)], type="u32")).results[0]
        b.insert(ptx("mbarrier_arrive", [peer], sem="release", scope="cluster",
                     space="shared::cluster"))


def use_parity(ctx, b: Builder, ring: StageView, role: str, stage: SSAValue) -> SSAValue:
    """The parity (i32) of this thread's current use of ``stage`` in ``role``, flipping its
    use bit (module docstring)."""
    reg = ctx.alloc_private(("tma_ring_phase", ring.alloc, role),
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
