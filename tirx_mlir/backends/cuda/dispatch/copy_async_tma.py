"""``tirx.copy_async`` on sm_90 through TMA: TIRx's variants ``tma_auto`` and ``tma_explicit``
(priority 10 each, ``tma_auto`` tried first: ties go by name; apache/tvm
``python/tvm/backend/cuda/tile_primitive/copy_async/tma.py``), global -> shared (loads) and
shared -> global (stores, and with ``config {use_tma_reduce = "add"|"min"|"max"}`` reductions).

The shared side is one whole stage tile ``[rows, cols]`` of a shared alloc (the alloc itself,
or ``ring[s]`` of a ring of stages) whose layout is a `swizzle.swizzled_layout` (the default
layout pass gives the shared tiles of TMA copies the widest swizzle their columns allow) or
row-major; the global side a unit-stride region of a row-major kernel parameter. The tensor map
is a host-built kernel parameter (`host_tensor_maps.tensor_map_param`).

**tma_auto** copies the tile as `tma_box.plan_tma`'s boxes (at most 256 per dim, inner box a
multiple of 16 bytes, one box per swizzled column block); the region's last dim holds the
columns. **tma_explicit** is TIRx's one call = one instruction: the global buffer's shape and
strides are the map's globalDim / globalStrides, the region's start its coordinates and its
extent (every dim, unit ones too) the box; the shared tile must be exactly that box (its
columns the box's inner dim, within one swizzle span), else it declines.

Loads: each box a ``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes``
on the stage's ``full`` mbarrier armed with the copy's bytes; the mbarriers, the issuing thread
and who waits are tma_ring.py's protocol (a pipelined ring: the producer waits for the stage to
be empty, the gemm_async consumers for it to be full; otherwise every thread waits right after
the issue, or only the consumer warpgroups for a one-shot load only they read: tma_one_shot.py).
``config {cta_mask = M}`` multicasts a load's boxes to groups of the cluster's CTAs, each CTA of
a group issuing its share (tma_multicast.py). ``config {oob = "zero"|"nan"}`` is
the tensor map's fill of box elements outside the tensor (zeros, the default, or NaN:
``CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA``, for a floating-point load).
``config {cache_hint = "evict_first"|"evict_last"|"evict_normal"|"evict_unchanged"}`` (loads,
stores and reductions) gives the copy's L2 accesses that eviction priority: the issuing thread
makes the policy once (``createpolicy.fractional.L2::<priority>.b64``) and every box takes it
(``.L2::cache_hint``). ``config {prefetch_tensormap = true}``: thread 0 prefetches the copy's
tensor map at kernel entry (``prefetch.tensormap``), once per map. Any other config key
declines, naming these.

Stores (PTX ISA "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor"; CUDA C++ Programming
Guide, "Asynchronous Data Copies using TMA"): the tile was written through the generic proxy,
the TMA reads it through the async proxy, so every thread of the scope first runs
``fence.proxy.async.shared::cta`` (a reduction, which also reads the global destination that
generic stores may have written: ``fence.proxy.async`` of every state space) and the scope's
barrier; then one thread (the scope's thread
0) issues the boxes (``cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group``, or
``cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<op>.tile.bulk_group``), commits the bulk
group and waits for it (``cp.async.bulk.wait_group 0``: the tile level's copy is complete when
the op ends), and the scope's barrier again (the tile may be rewritten after it).

``dsmem`` (shared -> shared of another CTA of the cluster) is copy_async_dsmem.py's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerAttr, i32, i64
from xdsl.ir import BlockArgument, SSAValue

from tirx_mlir.backends.cuda import host_tensor_maps
from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.cuda.shared import ALIGN_ATTR, TILE_ALIGN
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.dispatch import ring_loop_roles as roles
from tirx_mlir.backends.cuda.dispatch import shared_refill, tma_multicast, tma_one_shot
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.backends.cuda.layout.roles import producer_thread
from tirx_mlir.backends.cuda.layout.swizzle import tile_alignment
from tirx_mlir.backends.cuda.layout.tma_box import MAX_BOX, MAX_RANK, TmaBox, TmaPlan, plan_tma
from tirx_mlir.backends.cuda.memory import GLOBAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import materialize, resolve_access
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.rules import RuleError
from tirx_mlir.dispatch import fail, no_where, predicate, register_dispatch
from tirx_mlir.dispatch.builders import check_config, config_choice, elem_type, scope_of

CONFIG = ("use_tma_reduce", "cta_mask", "oob", "cache_hint", "prefetch_tensormap")
"""The config keys of the TMA variants."""
CACHE_HINTS = ("evict_first", "evict_last", "evict_normal", "evict_unchanged")
"""``cache_hint``: the L2 eviction priority of the copy's accesses (`_cache_policy`)."""


def _is_store(op) -> bool:
    return scope_of(op.src) in SHARED_SCOPES and scope_of(op.dst) == GLOBAL


def _global_shared(op, ctx):
    pair = (scope_of(op.src), scope_of(op.dst))
    ok = (pair[0] == GLOBAL and pair[1] in SHARED_SCOPES) or _is_store(op)
    return ok, f"copies {pair[0]} -> {pair[1]}; TMA copies global <-> shared"


def _same_dtype(op, ctx):
    ok = op.src.type.element_type == op.dst.type.element_type
    return ok, "a TMA copy does not convert element types"


GLOBAL_SHARED = predicate("global<->shared", _global_shared)
SAME_DTYPE = predicate("same dtype", _same_dtype)
WHEN = [common.sm_at_least(90), common.ONE_DIM_BLOCK, GLOBAL_SHARED, SAME_DTYPE,
        no_where("a TMA box is copied whole (cp.async, variant ldgsts, zero-fills by predicate)")]


@dataclass(frozen=True)
class Sides:
    """The copy's shared stage tile, its global region and the tile's swizzle."""

    ring: ring_.StageView
    region: object
    mode: sw.Swizzle
    elem_bytes: int


def _sides(op, ctx) -> Sides:
    shared, glob = (op.src, op.dst) if _is_store(op) else (op.dst, op.src)
    ring = ring_.stage_view(shared)
    if isinstance(ring, str):
        fail(ring)
    alloc_type = ring.alloc.type
    e = dtypes.bit_width(alloc_type.element_type) // 8
    mode = sw.swizzled_tile(alloc_type.get_layout(), alloc_type.get_shape(), e)
    if mode is None:
        fail(f"the shared tile's layout {alloc_type.get_layout()} is no TMA box layout (a "
             f"32/64/128-byte swizzled or row-major tile: layout/swizzle.py)")
    region = resolve_access(glob).as_region()
    if region is None or set(region.strides) - {1}:
        fail("the global side must be a unit-stride rectangular slice of a kernel parameter")
    param = region.buffer
    if not isinstance(param, BlockArgument) or param.block is not ctx.kernel.body.block:
        fail("the global side must view a kernel parameter (a tensor map maps one)")
    layout = param.type.get_layout()
    if layout is not None and not layout.is_trivial_row_major(param.type.get_shape()):
        fail(f"the global tensor must be row-major for a tensor map, its layout is {layout}")
    return Sides(ring, region, mode, e)


def _auto_plan(s: Sides) -> TmaPlan:
    shape = s.region.buffer.type.get_shape()
    non_unit = [d for d, n in enumerate(s.region.sizes) if n != 1]
    rows, cols = s.ring.tile
    if cols == 1 and s.region.sizes[-1] == 1:
        fail(f"a tile of one column: a tensor map's box takes a multiple of 16 bytes along "
             f"the global tensor's contiguous dim, and each row of this tile is "
             f"{s.elem_bytes} bytes; widen the tile's rows or copy it with cp.async "
             f"(dispatch \"ldgsts\")")
    if not non_unit or non_unit[-1] != len(shape) - 1 or s.region.sizes[-1] != cols:
        fail("the tile's columns must run along the global tensor's last (contiguous) dim")
    row_dim = non_unit[0] if len(non_unit) == 2 else max(0, len(shape) - 2)
    plan = plan_tma(rows, cols, s.mode, s.elem_bytes, shape, row_dim)
    if isinstance(plan, str):
        fail(plan)
    return plan


def _explicit_plan(s: Sides) -> TmaPlan:
    """One box: the region itself (module docstring)."""
    shape = s.region.buffer.type.get_shape()
    box = tuple(int(n) for n in s.region.sizes)
    rows, cols = s.ring.tile
    if not 1 <= len(box) <= MAX_RANK:
        fail(f"a tensor map has rank 1 to {MAX_RANK}; the global tensor has rank {len(box)}")
    if any(n > MAX_BOX for n in box):
        fail(f"one tma_explicit call is one box: every extent at most {MAX_BOX}, the region "
             f"is {list(box)} (tma_auto splits it)")
    inner = box[-1] * s.elem_bytes
    if box[-1] != cols or rows * cols != math.prod(box):
        fail(f"the shared tile [{rows}, {cols}] must be the box {list(box)} in C order (its "
             f"columns the box's inner dim)")
    if inner % 16:
        fail(f"the box's inner dim spans {inner} bytes; a tensor map needs a multiple of 16")
    if s.mode is not sw.Swizzle.NONE and inner != s.mode.row_bytes:
        fail(f"the box's inner dim spans {inner} bytes, the shared tile's "
             f"{s.mode.tensor_map_name} swizzle {s.mode.row_bytes}: one instruction writes one "
             f"swizzle span per row (tma_auto splits wider tiles)")
    strides = [s.elem_bytes * math.prod(shape[d + 1:]) for d in range(len(shape) - 1)]
    if any(st % 16 for st in strides):
        fail(f"the global tensor's strides {strides} bytes must be multiples of 16 for a "
             f"tensor map")
    return TmaPlan(box, s.mode, (TmaBox(0, (0,) * len(box)),), s.elem_bytes)


def _align_shared(alloc) -> None:
    """A TMA tile starts on 128 bytes (its swizzle pattern when swizzled): state it on the
    alloc (``cuda.align``), where the interpreter and the layout lowering read it."""
    btype = alloc.result.type
    need = tile_alignment(btype.get_layout(), dtypes.bit_width(btype.element_type) // 8,
                          TILE_ALIGN)
    have = alloc.attributes.get(ALIGN_ATTR)
    if not isinstance(have, IntegerAttr) or have.value.data < need:
        alloc.attributes[ALIGN_ATTR] = IntegerAttr(need, i64)


def _copy(op, ctx, plan_of) -> None:
    s = _sides(op, ctx)
    store = _is_store(op)
    try:
        reduction = op.reduction()
    except RuleError as err:
        fail(str(err))
    if reduction is not None and not store:
        fail(f"use_tma_reduce {reduction!r} reduces shared -> global; this copy loads")
    check_config(op, CONFIG)
    oob = config_choice(op, "oob", ("zero", "nan"), "zero")
    if oob == "nan" and (store or not isinstance(elem_type(op.dst), AnyFloat)):
        fail("config oob = \"nan\" fills a load's out-of-bounds elements of a floating-point "
             "tile with NaN; " + ("a store reads none" if store else
                                   f"this tile holds {elem_type(op.dst)}"))
    if store and ("cta_mask" in op.config_dict() or op.cta_mask is not None):
        fail("cta_mask multicasts loads into the cluster's CTAs; a store has one source tile")
    if store and op.exec_scope == ExecScope.THREAD:
        fail("a TMA store at thread scope would be issued by every thread; store at warp, "
             "warpgroup or cta scope (one thread of the scope issues)")
    hint = config_choice(op, "cache_hint", CACHE_HINTS)
    prefetch = config_choice(op, "prefetch_tensormap", (True, False), False)
    plan = plan_of(s)
    cast = None if store else tma_multicast.plan(op, ctx.kernel, s.region)  # cta_mask
    if cast is not None and cast.groups is None and ring_.pipelined(ctx, s.ring.alloc):
        ring_.check_recomputable(op.cta_mask)  # the ring's barriers count it at kernel entry
    plan = tma_multicast.share(plan, cast, cut=plan_of is _auto_plan)
    _align_shared(s.ring.alloc.owner)
    tmap = host_tensor_maps.tensor_map_param(ctx.kernel, s.region.buffer, plan.box,
                                             plan.swizzle, oob)
    if store:
        _store(op, ctx, s, plan, tmap, reduction, hint)
    else:
        _load(op, ctx, s, plan, tmap, cast, hint)
    shared_refill.note_unordered(ctx, op)  # a narrower store's tile: other warps unordered
    if prefetch:
        _prefetch_at_entry(ctx, tmap)


def _prefetch_at_entry(ctx, tmap: SSAValue) -> None:
    """``config prefetch_tensormap``: thread 0 prefetches the map (``prefetch.tensormap``) at
    kernel entry, once per map whatever the number of copies through it, so the first copy
    does not wait for the descriptor's fetch."""
    done = ctx.shared_state.setdefault("tma_prefetched", set())
    if tmap in done:
        return
    done.add(tmap)

    def build(b: Builder) -> None:
        first = b.insert(arith.CmpiOp(ring_.thread_id(b), ring_.const(b, 0, IndexType()),
                                      "eq")).result
        inner = ring_.emit_if(b, first)
        addr = inner.insert(cuda.AddressOp.build(
            operands=[tmap, ring_.const(inner, 0, IndexType())], result_types=[i64])).result
        inner.insert(ptx("prefetch_tensormap", [addr]))
        ring_.close_if(inner)
    ctx.add_init(build)


def _cache_policy(b: Builder, hint: str | None) -> dict:
    """The modifiers and extra operand of a box's copy for ``config cache_hint``: the policy
    is made by ``createpolicy.fractional.L2::<hint>.b64`` (fraction 1.0) in the issuing
    thread, and each box's ``.L2::cache_hint`` takes it (PTX ISA "createpolicy",
    "cp.async.bulk.tensor"). Without the config: nothing."""
    if hint is None:
        return {"mods": {}, "operands": []}
    policy = b.insert(ptx("createpolicy", [], primary=f"L2::{hint}")).results[0]
    return {"mods": {"hint": "L2::cache_hint"}, "operands": [policy]}


def _box_operands(b: Builder, s: Sides, plan: TmaPlan, tmap: SSAValue, stage: SSAValue,
                  box: TmaBox) -> tuple[SSAValue, SSAValue, list[SSAValue]]:
    """(shared address, tensor-map address, coordinates innermost first) of one box."""
    tile_start = b.insert(arith.MuliOp(
        stage, ring_.const(b, s.ring.tile_elements, IndexType()))).result
    offset = b.insert(arith.AddiOp(tile_start, ring_.const(b, box.smem_offset,
                                                           IndexType()))).result
    smem = ring_.shared_address(b, s.ring.alloc, offset)
    tmap_addr = b.insert(cuda.AddressOp.build(
        operands=[tmap, ring_.const(b, 0, IndexType())], result_types=[i64])).result
    coords = []
    for d in reversed(range(len(plan.box))):
        c = materialize(b, s.region.offsets[d] + box.coords[d])
        c = ring_.const(b, c, IndexType()) if isinstance(c, int) else c
        coords.append(b.insert(arith.IndexCastOp(c, i32)).result)
    return smem, tmap_addr, coords


def _load(op, ctx, s: Sides, plan: TmaPlan, tmap: SSAValue,
          cast: tma_multicast.Multicast | None, hint: str | None) -> None:
    ring = s.ring
    kernel = ctx.kernel
    bars = ring_.ring_barriers(ctx, ring)
    pipelined = ring_.pipelined(ctx, ring.alloc)
    b = ctx.builder
    if not pipelined:  # a pipelined ring's empty barriers order the refill (tma_ring.py)
        tma_multicast.before_issue(b, cast)
        if cast is None:
            shared_refill.refill_barrier(ctx, b, op, ring.alloc)
    tx = common.ThreadIds(b)["tx"]
    stage = ring_.stage_index(b, ring)
    alone = ring_.acquires_alone(ctx, op, ring.alloc) if pipelined else False
    if alone is None:  # the first copy of a mixed group: every producer thread waits
        at = ring_.producer_block(ctx, b)
        ring_.acquire(ctx, at, ring, stage)
        ring_.close_if(at)
    issuer = b.insert(arith.CmpiOp(tx, ring_.const(b, producer_thread(kernel),
                                                   IndexType()), "eq")).result
    inner = ring_.emit_if(b, issuer)
    full = ring_.shared_address(inner, bars.full, stage)
    if alone:
        ring_.acquire(ctx, inner, ring, stage)
    inner.insert(ptx("mbarrier_arrive_expect_tx", [full, ring_.const(inner, plan.total_bytes)],
                     space="shared"))
    policy = _cache_policy(inner, hint)
    cast = tma_multicast.prepare(inner, cast)
    for i, box in enumerate(plan.boxes):
        at, opened = tma_multicast.box_builder(inner, cast, i)
        dst, tmap_addr, coords = _box_operands(at, s, plan, tmap, stage, box)
        tma_multicast.issue_box(at, cast, [dst, tmap_addr, *coords, full], f"{len(plan.box)}d",
                                opened, policy)
    ring_.close_if(inner)
    split = roles.register_ring_loop(ctx, op) if pipelined else None
    if split is not None:  # the producer's loop of a split (ring_loop_roles.py)
        guard = inner.insertion_point.block.parent_op()
        assert isinstance(guard, scf.IfOp)
        roles.tag(split, guard, roles.PRODUCER_ROLE)
    if not pipelined:  # the copy completes here (a one-shot load: its only wait)
        tma_one_shot.wait(ctx, b, op, ring, ring_.shared_address(b, bars.full, stage), stage,
                          multicast=cast is not None)


_ISSUER_AXIS = {ExecScope.CTA: "tx", ExecScope.WARPGROUP: "tid_in_wg", ExecScope.WARP: "laneid"}


def _store(op, ctx, s: Sides, plan: TmaPlan, tmap: SSAValue, reduction: str | None,
           hint: str | None) -> None:
    b = ctx.builder
    scope = op.exec_scope
    # a reduction also reads the destination, which generic stores may have written: the fence
    # of every state space (no .space) then
    _fence_then_barrier(op, b, scope, None if reduction is not None else "shared::cta")
    tid = common.ThreadIds(b)[_ISSUER_AXIS[scope]]
    stage = ring_.stage_index(b, s.ring)
    issuer = b.insert(arith.CmpiOp(tid, ring_.const(b, 0, IndexType()), "eq")).result
    inner = ring_.emit_if(b, issuer)
    policy = _cache_policy(inner, hint)
    for box in plan.boxes:
        src, tmap_addr, coords = _box_operands(inner, s, plan, tmap, stage, box)
        operands = [tmap_addr, *coords, src, *policy["operands"]]
        dim = f"{len(plan.box)}d"
        if reduction is None:
            inner.insert(ptx("cp_async_bulk_tensor_s2g", operands, dim=dim, **policy["mods"]))
        else:
            inner.insert(ptx("cp_reduce_async_bulk_tensor", operands, dim=dim,
                             redop=reduction, **policy["mods"]))
    inner.insert(ptx("cp_async_bulk_commit_group", []))
    inner.insert(ptx("cp_async_bulk_wait_group", [], n=0))
    ring_.close_if(inner)
    common.scope_barrier(b, scope)


def _fence_then_barrier(op, b: Builder, scope: ExecScope, space: str | None) -> None:
    """``fence.proxy.async{.space}`` in every thread of ``scope``, then its barrier; when
    the program right before the op ends with that barrier (the writer's own, as dispatched),
    the fence goes before it instead of adding another."""
    fence = ptx("fence_proxy_async", [], space=space)
    prev = common.barrier_before(op, scope)
    if prev is not None and b.insertion_point.block.first_op is None:
        prev.parent_block().insert_op_before(fence, prev)
        return
    b.insert(fence)
    common.scope_barrier(b, scope)


@register_dispatch(T.CopyAsyncOp, "cuda", variant="tma_auto", priority=10, when=WHEN)
def tma_auto(op, ctx) -> None:
    _copy(op, ctx, _auto_plan)


@register_dispatch(T.CopyAsyncOp, "cuda", variant="tma_explicit", priority=10, when=WHEN)
def tma_explicit(op, ctx) -> None:
    _copy(op, ctx, _explicit_plan)
