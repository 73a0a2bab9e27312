"""Distributed shared memory on sm_90: ``tirx.copy_async ... remote_cta %r`` as TIRx's variant
``dsmem`` (priority 10; apache/tvm ``python/tvm/backend/cuda/tile_primitive/copy_async/dsmem.py``)
and ``tirx.cluster_sync`` (variant ``barrier_cluster``), which together keep the tile-level
meaning (docs/ir.md, "Clusters": a remote copy lands in its destination CTA at the next sync).

**dsmem** (shared -> the same shared buffer of CTA ``r`` of the cluster; cta, warpgroup or warp
scope, the scope one instance per CTA, as the tile level requires of an op writing a CTA's
shared tile: a warpgroup-scope copy in a CTA of one warpgroup, a warp-scope one in a CTA of one
warp): the tile is cut into its longest chunk contiguous in both tiles (trailing dims merged
while their physical strides chain), of at least 16 bytes and a multiple of 16, starting on 16
bytes; every thread of the scope makes its writes of the source visible to the async proxy
(``fence.proxy.async.shared::cta``) and meets the others at the scope's barrier (``bar.sync``,
the warpgroup's named barrier, ``__syncwarp``); then thread 0 maps the CTA's *inbox* mbarrier to CTA
``r`` (``mapa``), adds the copy's bytes to it (``mbarrier.expect_tx.relaxed.cluster
.shared::cluster``) and issues one ``cp.async.bulk.shared::cluster.shared::cta.mbarrier
::complete_tx::bytes`` per chunk (a loop over the outer dims when there are several) to the
mapped destination, completing on the remote inbox. The destination alloc is marked
``cuda.cluster_visible``: other CTAs write it at any time of a phase, so cuda-allocate-shared
gives it bytes of its own for the whole kernel.

**barrier_cluster**: ``cuda.sync_cluster`` (``barrier.cluster.arrive`` + ``wait``). In a kernel
with dsmem copies it is the receiving side as well: after the barrier every copy into this CTA
of the phase has been issued and its bytes expected, so thread 0 arrives on the inbox (its
count is 1) and every thread waits for the inbox's phase (``mbarrier.try_wait.parity.acquire
.cluster``; the parity is a per-thread bit flipped at each sync): the bytes have landed. A
second cluster barrier then tells every sender that its copies are complete (their sources are
free) and keeps the next phase's ``expect_tx`` out of this one. The inbox (one ``shared`` i64)
is initialised by thread 0 at kernel entry (``mbarrier.init`` count 1,
``fence.mbarrier_init.release.cluster``), followed by a cluster barrier so that no CTA arms a
peer's inbox before it exists.
"""

from __future__ import annotations

import math

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.cuda.shared import ALIGN_ATTR, CLUSTER_VISIBLE_ATTR
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common, shared_refill
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.layout.defaults import scope_threads
from tirx_mlir.backends.cuda.layout.runs import aligned
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, NotAView, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.sync_ops import ClusterSyncOp
from tirx_mlir.dispatch import exec_scope_in, fail, predicate

BULK_UNIT = 16
"""Bytes: a bulk copy's size and both its addresses are multiples of this (PTX ISA
cp.async.bulk)."""


def _remote(op, ctx) -> tuple[bool, str]:
    return op.remote_cta is not None, "dsmem copies into another CTA (remote_cta)"


def _shared_to_shared(op, ctx) -> tuple[bool, str]:
    ok = op.src.type.scope_name in SHARED_SCOPES and op.dst.type.scope_name in SHARED_SCOPES
    return ok, "dsmem copies shared -> shared"


REMOTE = predicate("remote_cta", _remote)
S2S = predicate("shared->shared", _shared_to_shared)


def is_remote_copy(op) -> bool:
    return isinstance(op, T.CopyAsyncOp) and op.remote_cta is not None


# --- the plan ---------------------------------------------------------------------------------


def _strides(view: SSAValue) -> tuple[tuple[int, ...], IndexExpr]:
    """(physical element stride of each view dim, physical index of the first element)."""
    shape = view.type.get_shape()
    try:
        pattern = resolve_access(view)
    except NotAView as err:
        fail(str(err))
    if pattern.flat:
        fail("the view reshapes its buffer across dims; a bulk copy needs one stride per dim")
    btype = pattern.buffer_type

    def index(coords) -> IndexExpr:
        _, base = common.base_coords(view, coords)
        lin = common.linear_index(btype, base)
        if lin is None:
            fail(f"the layout {btype.get_layout()} of a dsmem tile is not one stride per dim "
                 f"(a swizzled tile's rows are not contiguous bytes)")
        return lin

    zero = index([0] * len(shape))
    strides = []
    for k in range(len(shape)):
        unit = [0] * len(shape)
        unit[k] = 1
        strides.append((index(unit) + zero.scale(-1)).const)
    return tuple(strides), zero


def _contiguous_from(shape, strides) -> int:
    """The first dim d such that dims d.. are one run of consecutive elements."""
    run, first = 1, len(shape)
    for k in reversed(range(len(shape))):
        if shape[k] == 1:
            first = k
            continue
        if strides[k] != run:
            break
        run *= shape[k]
        first = k
    return first


def plan_chunks(op: T.CopyAsyncOp) -> tuple[int, int]:
    """(number of outer dims looped over, chunk bytes): the longest chunk contiguous in both
    tiles, checked to be a legal bulk copy (module docstring)."""
    shape = op.dst.type.get_shape()
    esize = dtypes.bit_width(op.dst.type.element_type) // 8
    first = 0
    for view in (op.src, op.dst):
        strides, _ = _strides(view)
        first = max(first, _contiguous_from(shape, strides))
    chunk = math.prod(shape[first:]) * esize
    if chunk < BULK_UNIT or chunk % BULK_UNIT:
        fail(f"the longest run contiguous in both tiles is {chunk} bytes; a bulk copy moves a "
             f"multiple of {BULK_UNIT} bytes (make the inner dims contiguous and "
             f"{BULK_UNIT}-byte multiples)")
    for view in (op.src, op.dst):
        strides, start = _strides(view)
        if not aligned(start.scale(esize), BULK_UNIT) or \
                any(strides[k] * esize % BULK_UNIT for k in range(first) if shape[k] > 1):
            fail(f"a chunk of the {view.type} view does not start on {BULK_UNIT} bytes for every "
                 f"value of its offsets")
    return first, chunk


# --- the inbox --------------------------------------------------------------------------------


def uses_dsmem(ctx) -> bool:
    """Whether the kernel copies into other CTAs (decided on the program as the user wrote it,
    before its first remote copy is dispatched)."""
    state = ctx.shared_state
    if "dsmem" not in state:
        state["dsmem"] = any(is_remote_copy(o) for o in ctx.kernel.body.walk())
    return state["dsmem"]


def _init_inbox(b: Builder, inbox: SSAValue) -> None:
    zero = ring_.const(b, 0, IndexType())
    first = b.insert(arith.CmpiOp(ring_.thread_id(b), zero, "eq")).result
    inner = ring_.emit_if(b, first)
    inner.insert(ptx("mbarrier_init", [ring_.shared_address(inner, inbox, 0),
                                       ring_.const(inner, 1)], space="shared"))
    inner.insert(ptx("fence_mbarrier_init", []))
    ring_.close_if(inner)
    b.insert(cuda.SyncClusterOp())


def inbox(ctx) -> SSAValue:
    """The CTA's inbox mbarrier (allocated and initialised once per kernel)."""
    return ctx.alloc_private(("dsmem_inbox",), BufferType((1,), i64, "shared"), _init_inbox)


def _inbox_parity(ctx, b: Builder) -> SSAValue:
    """This thread's parity of the inbox phase it waits for, flipped for the next sync."""
    reg = ctx.alloc_private(("dsmem_inbox_phase",), BufferType((1,), i32, "local"),
                            ring_._zero_register)  # noqa: SLF001 - the ring's zero-init
    zero = ring_.const(b, 0, IndexType())
    parity = b.insert(cuda.LoadOp.build(operands=[reg, zero], result_types=[i32])).result
    flipped = b.insert(arith.XOrIOp(parity, ring_.const(b, 1))).result
    b.insert(cuda.StoreOp.build(operands=[reg, zero, flipped]))
    return parity


# --- the variants -----------------------------------------------------------------------------


def _at_least_aligned(view: SSAValue, align: int) -> None:
    alloc = resolve_access(view).buffer.owner
    have = alloc.attributes.get(ALIGN_ATTR)
    if not isinstance(have, IntegerAttr) or have.value.data < align:
        alloc.attributes[ALIGN_ATTR] = IntegerAttr(align, i64)


def _for(b: Builder, n: int) -> tuple[Builder, SSAValue]:
    """``scf.for %i = 0 to n``: a builder in its body and the induction variable."""
    body = Block(arg_types=[IndexType()])
    lo, hi, one = (ring_.const(b, v, IndexType()) for v in (0, n, 1))
    b.insert(scf.ForOp(lo, hi, one, [], Region(body)))
    inner = Builder(InsertPoint.at_end(body))
    return inner, body.args[0]


def _digits(b: Builder, index: SSAValue, sizes: tuple[int, ...]) -> list[SSAValue]:
    """Row-major digits of ``index`` over ``sizes``."""
    out = []
    for k, n in enumerate(sizes):
        inner = math.prod(sizes[k + 1:])
        q = index if inner == 1 else b.insert(arith.DivUIOp(
            index, ring_.const(b, inner, IndexType()))).result
        out.append(q if k == 0 else b.insert(arith.RemUIOp(
            q, ring_.const(b, n, IndexType()))).result)
    return out


def _address(b: Builder, view: SSAValue, coords) -> SSAValue:
    buffer, base = common.base_coords(view, coords)
    index = common.physical_index(b, buffer.type, base)
    return ring_.shared_address(b, buffer, index)


def _one_instance(op: T.CopyAsyncOp, ctx) -> None:
    """The copy's scope is the whole CTA (module docstring), or a decline saying why."""
    threads = common.block_threads(ctx)
    per = scope_threads(op.exec_scope, threads)
    if per != threads:
        scope = op.exec_scope.value
        fail(f"a {scope}-scope remote copy runs once per {scope}, {threads // per} times in "
             f"each CTA of {threads} threads, each writing the same peer tile; copy at cta "
             f"scope (or launch one {scope} per CTA)")


@common.cuda_variant(T.CopyAsyncOp, "dsmem", 10,
                     [exec_scope_in("warp", "warpgroup", "cta"), common.ONE_DIM_BLOCK,
                      common.sm_at_least(90), REMOTE, S2S], barriers=False)
def dsmem(op: T.CopyAsyncOp, ctx) -> None:
    _one_instance(op, ctx)
    first, chunk = plan_chunks(op)
    shape = op.dst.type.get_shape()
    total = math.prod(shape) * dtypes.bit_width(op.dst.type.element_type) // 8
    for view in (op.src, op.dst):
        _at_least_aligned(view, BULK_UNIT)
    resolve_access(op.dst).buffer.owner.attributes[CLUSTER_VISIBLE_ATTR] = IntegerAttr(1, i64)
    ctx.shared_state["dsmem"] = True
    box = inbox(ctx)
    b = ctx.builder
    b.insert(ptx("fence_proxy_async", [], space="shared::cta"))
    common.scope_barrier(b, op.exec_scope)
    tx = common.ThreadIds(b)["tx"]
    issuer = b.insert(arith.CmpiOp(tx, ring_.const(b, 0, IndexType()), "eq")).result
    inner = ring_.emit_if(b, issuer)
    rank = inner.insert(arith.IndexCastOp(op.remote_cta, i32)).result
    bar = inner.insert(ptx("mapa", [ring_.shared_address(inner, box, 0), rank],
                           type="u32")).results[0]
    inner.insert(ptx("mbarrier_expect_tx", [bar, ring_.const(inner, total)], scope="cluster",
                     space="shared::cluster"))
    outer = tuple(shape[:first])
    body, coords = inner, [0] * len(shape)
    if math.prod(outer) > 1:
        body, i = _for(inner, math.prod(outer))
        coords[:first] = _digits(body, i, outer)
    src = _address(body, op.src, coords)
    dst = body.insert(ptx("mapa", [_address(body, op.dst, coords), rank], type="u32")).results[0]
    body.insert(ptx("cp_async_bulk_s2c", [dst, src, ring_.const(body, chunk), bar]))
    if body is not inner:
        body.insert(scf.YieldOp())
    ring_.close_if(inner)


@common.cuda_variant(ClusterSyncOp, "barrier_cluster", 10,
                     [common.sm_at_least(90), common.ONE_DIM_BLOCK], barriers=False)
def barrier_cluster(op: ClusterSyncOp, ctx) -> None:
    b = ctx.builder
    if not uses_dsmem(ctx):  # a cluster barrier is CTA-wide too (shared_refill.py)
        shared_refill.note_barrier(ctx, b.insert(cuda.SyncClusterOp()))
        return
    box = inbox(ctx)
    b.insert(ptx("fence_proxy_async", [], space="shared::cta"))
    b.insert(cuda.SyncClusterOp())
    bar = ring_.shared_address(b, box, 0)
    tx = common.ThreadIds(b)["tx"]
    first = b.insert(arith.CmpiOp(tx, ring_.const(b, 0, IndexType()), "eq")).result
    inner = ring_.emit_if(b, first)
    inner.insert(ptx("mbarrier_arrive", [ring_.shared_address(inner, box, 0)], space="shared"))
    ring_.close_if(inner)
    parity = _inbox_parity(ctx, b)
    ring_.wait_parity(b, bar, parity, sem="acquire", scope="cluster")
    shared_refill.note_barrier(ctx, b.insert(cuda.SyncClusterOp()))

