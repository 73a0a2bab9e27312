"""``tirx.copy_async`` on sm_90 through TMA: TIRx's variant ``tma_auto`` (priority 10; apache/tvm
``python/tvm/backend/cuda/tile_primitive/copy_async/tma.py``).

**tma_auto** (global -> shared, any exec scope: the variant itself picks the one thread that
issues): the shared side is one whole stage tile ``[rows, cols]`` of a shared alloc (the alloc
itself, or ``ring[s]`` of a ring of stages) whose layout is a `swizzle.swizzled_layout` (the
default layout pass gives TMA destinations the widest swizzle their columns allow); the global
side a rectangular region of a row-major kernel parameter whose last dim holds the columns.
The copy is `tma_box.plan_tma`'s boxes (at most 256 per dim, inner box a multiple of 16 bytes,
one box per swizzled column block), each a ``cp.async.bulk.tensor.Nd.shared::cluster.global
.mbarrier::complete_tx::bytes`` on the stage's ``full`` mbarrier armed with the copy's bytes;
the tensor map is a host-built kernel parameter (`host_tensor_maps.tensor_map_param`);
``config {cta_mask = M}`` multicasts the boxes to the cluster (tma_multicast.py). The
mbarriers, the issuing thread and who waits are tma_ring.py's protocol: in a pipelined ring
the producer waits for the stage to be empty and the gemm_async consumers wait for it to be
full; otherwise every thread waits for the copy right after the issue.

``dsmem`` (shared -> shared of another CTA of the cluster) is copy_async_dsmem.py's.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32, i64
from xdsl.ir import BlockArgument

from tirx_mlir.backends.cuda import host_tensor_maps
from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.cuda.shared import ALIGN_ATTR, TILE_ALIGN
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.dispatch import tma_multicast
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.layout import swizzle as sw
from tirx_mlir.backends.cuda.layout.roles import producer_thread
from tirx_mlir.backends.cuda.layout.swizzle import tile_alignment
from tirx_mlir.backends.cuda.layout.tma_box import TmaPlan, plan_tma
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import materialize, resolve_access
from tirx_mlir.dispatch import fail, predicate, register_dispatch


def _global_to_shared(op, ctx):
    ok = op.src.type.scope_name == "global" and op.dst.type.scope_name in ("shared", "shared.dyn")
    return ok, "tma_auto copies global -> shared"


def _same_dtype(op, ctx):
    ok = op.src.type.element_type == op.dst.type.element_type
    return ok, "a TMA copy does not convert element types"


G2S = predicate("global->shared", _global_to_shared)
SAME_DTYPE = predicate("same dtype", _same_dtype)


# --- tma_auto -------------------------------------------------------------------------------------


def _plan(op, ctx) -> tuple[ring_.StageView, TmaPlan, object]:
    ring = ring_.stage_view(op.dst)
    if isinstance(ring, str):
        fail(ring)
    alloc_type = ring.alloc.type
    elem = alloc_type.element_type
    e = dtypes.bit_width(elem) // 8
    mode = sw.swizzled_tile(alloc_type.get_layout(), alloc_type.get_shape(), e)
    if mode is None:
        fail(f"the destination's layout {alloc_type.get_layout()} is no TMA box layout (a "
             f"32/64/128-byte swizzled or row-major tile: layout/swizzle.py)")
    src = resolve_access(op.src).as_region()
    if src is None or set(src.strides) - {1}:
        fail("the global side must be a unit-stride rectangular slice of a kernel parameter")
    param = src.buffer
    if not isinstance(param, BlockArgument) or param.block is not ctx.kernel.body.block:
        fail("the global side must view a kernel parameter (a tensor map maps one)")
    layout = param.type.get_layout()
    if layout is not None and not layout.is_trivial_row_major(param.type.get_shape()):
        fail(f"the global tensor must be row-major for a tensor map, its layout is {layout}")
    shape = param.type.get_shape()
    non_unit = [d for d, n in enumerate(src.sizes) if n != 1]
    rows, cols = ring.tile
    if not non_unit or non_unit[-1] != len(shape) - 1 or src.sizes[-1] != cols:
        fail("the tile's columns must run along the global tensor's last (contiguous) dim")
    row_dim = non_unit[0] if len(non_unit) == 2 else max(0, len(shape) - 2)
    plan = plan_tma(rows, cols, mode, e, shape, row_dim)
    if isinstance(plan, str):
        fail(plan)
    return ring, plan, src


def _align_destination(alloc) -> None:
    """A TMA destination starts on 128 bytes (its swizzle pattern when swizzled): state it on
    the alloc (``cuda.align``), where the interpreter and the layout lowering read it."""
    btype = alloc.result.type
    need = tile_alignment(btype.get_layout(), dtypes.bit_width(btype.element_type) // 8,
                          TILE_ALIGN)
    have = alloc.attributes.get(ALIGN_ATTR)
    if not isinstance(have, IntegerAttr) or have.value.data < need:
        alloc.attributes[ALIGN_ATTR] = IntegerAttr(need, i64)


@register_dispatch(T.CopyAsyncOp, "cuda", variant="tma_auto", priority=10,
                   when=[common.sm_at_least(90), common.ONE_DIM_BLOCK, G2S, SAME_DTYPE])
def tma_auto(op, ctx) -> None:
    ring, plan, src = _plan(op, ctx)
    kernel = ctx.kernel
    cast = tma_multicast.plan(op, kernel, src)  # config cta_mask
    _align_destination(ring.alloc.owner)
    tmap = host_tensor_maps.tensor_map_param(kernel, src.buffer, plan.box, plan.swizzle)
    bars = ring_.ring_barriers(ctx, ring)
    pipelined = ring_.pipelined(ctx, ring.alloc)
    b = ctx.builder
    tma_multicast.before_issue(b, cast)
    tx = common.ThreadIds(b)["tx"]
    stage = ring_.stage_index(b, ring)
    issuer = b.insert(arith.CmpiOp(tx, ring_.const(b, producer_thread(kernel),
                                                   IndexType()), "eq")).result
    inner = ring_.emit_if(b, issuer)
    full = ring_.shared_address(inner, bars.full, stage)
    if pipelined:
        empty = ring_.shared_address(inner, bars.empty, stage)
        parity = ring_.use_parity(ctx, inner, ring, ring_.PRODUCER, stage)
        flipped = inner.insert(arith.XOrIOp(parity, ring_.const(inner, 1))).result
        ring_.wait_parity(inner, empty, flipped)
    inner.insert(ptx("mbarrier_arrive_expect_tx", [full, ring_.const(inner, plan.total_bytes)],
                     space="shared"))
    tile_start = inner.insert(arith.MuliOp(
        stage, ring_.const(inner, ring.tile_elements, IndexType()))).result
    tmap_addr = inner.insert(cuda.AddressOp.build(
        operands=[tmap, ring_.const(inner, 0, IndexType())], result_types=[i64])).result
    for i, box in enumerate(plan.boxes):
        at = tma_multicast.box_builder(inner, cast, i)
        offset = at.insert(arith.AddiOp(
            tile_start, ring_.const(at, box.smem_offset, IndexType()))).result
        dst = ring_.shared_address(at, ring.alloc, offset)
        coords = []
        for d in reversed(range(len(plan.box))):
            c = materialize(at, src.offsets[d] + box.coords[d])
            c = ring_.const(at, c, IndexType()) if isinstance(c, int) else c
            coords.append(at.insert(arith.IndexCastOp(c, i32)).result)
        tma_multicast.issue_box(at, cast, [dst, tmap_addr, *coords, full], f"{len(plan.box)}d")
    ring_.close_if(inner)
    if not pipelined:
        full_all = ring_.shared_address(b, bars.full, stage)
        parity = ring_.use_parity(ctx, b, ring, ring_.CONSUMER, stage)
        ring_.wait_parity(b, full_all, parity)
