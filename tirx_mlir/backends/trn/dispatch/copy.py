"""Trainium variants of tirx.copy and tirx.cast.

* ``default`` (priority 10, as TIRx): HBM -> SBUF is ``nki.load``, SBUF -> HBM ``nki.store``
  (one DMA per partition block, free size unbounded), on-chip copies ``nki.tensor_copy`` (at
  most ``max_inst_size`` free elements, default 512). A PSUM endpoint of a DMA goes through a
  scratch SBUF tile (DMA cannot touch PSUM). Element types may differ (the copy converts).
* ``transpose`` (priority 5): an on-chip copy whose endpoints hold different dims on the
  partitions is a transposing copy through TensorE: ``nki.matmul(out, src_block, I)`` gives
  ``src_block.T`` in PSUM (the identity is a private SBUF tile built once per kernel), then
  ``nki.tensor_copy`` to an SBUF destination. Blocks are at most 128 x 128.
* ``partition_broadcast`` (priority 11): a row on chip copied to every partition
  (`partition_broadcast.broadcast_on_chip`); a row in HBM is the ``default`` DMA.
* tirx.cast uses the same lowering (``tensor_copy``/DMA convert the element type, to nearest
  even: a cast's ``rounding_mode`` other than ``rn`` is refused, `rounding`);
  tirx.permute_layout (the same logical tile in another layout) is exactly such a copy; and
  tirx.copy_async too: NKI DMAs are asynchronous already, the compiler orders them by their data
  dependences, so the program-order copy is the issued copy, complete when its data is read.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.builtin import f32

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import (OPERANDS_ON_TRN, THREAD_SCOPE, max_free,
                                                    scratch_tile)
from tirx_mlir.backends.trn.dispatch.partition_broadcast import broadcast_on_chip, on_chip_row
from tirx_mlir.backends.trn.dispatch.plan import (SBUF_FREE_LIMIT, PlanOperand, check_guards,
                                                  choose_chunks, partition_dims, plan_tiles,
                                                  refine)
from tirx_mlir.backends.trn.dispatch.rounding import HONOURS_ROUNDING
from tirx_mlir.backends.trn.memory import HBM, PSUM, SBUF
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import guard_like
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dispatch import accepts_guards, fail, no_where, predicate, register_dispatch
from tirx_mlir.dispatch.builders import align, elem_type, scope_of, shape_of

TENSOR_ENGINE_DTYPES = ("f8E4M3FN", "f8E5M2", "bf16", "f16", "f32")


def _operands(op) -> list[PlanOperand]:
    iter_shape = shape_of(op.dst)
    try:
        aligned = align(shape_of(op.src), iter_shape, "copy source")
    except rules.RuleError as err:
        fail(str(err))
    return [PlanOperand(op.dst, tuple(iter_shape), "dst"), PlanOperand(op.src, aligned, "src")]


def _copy(op, ctx) -> None:
    dst_scope, src_scope = scope_of(op.dst), scope_of(op.src)
    if dst_scope == HBM and src_scope == "global":
        fail("both endpoints are in HBM; stage the copy through an SBUF tile")
    dma = HBM in (dst_scope, src_scope)
    limit = SBUF_FREE_LIMIT if dma else max_free(op, [op.dst, op.src])
    b = ctx.builder
    ops = _operands(op)
    plan = plan_tiles(b, shape_of(op.dst), ops, anchor=0, max_free=limit)
    staged = None
    if dma and PSUM in (dst_scope, src_scope):
        chip = op.dst if dst_scope != HBM else op.src
        free = [plan.chunk[j] for j in plan.free_order() if plan.chunk.get(j, 1) > 1]
        staged = scratch_tile(b, op, [plan.partitions] + (free or [1]), elem_type(chip), SBUF,
                              "the SBUF staging tile of a PSUM<->HBM copy")

    def body(bb: Builder, ivs, _counters) -> None:
        d, s = plan.instruction_view(bb, ops[0], ivs), plan.instruction_view(bb, ops[1], ivs)
        if not dma:
            bb.insert(nki.TensorCopyOp(d, s))
        elif dst_scope == HBM:
            if staged is not None:
                stage = guard_like(bb, staged, s)
                bb.insert(nki.TensorCopyOp(stage, s))
                s = stage
            bb.insert(nki.StoreOp(d, s))
        else:
            if staged is not None:
                stage = guard_like(bb, staged, d)
                bb.insert(nki.LoadOp(stage, s))
                bb.insert(nki.TensorCopyOp(d, stage))
            else:
                bb.insert(nki.LoadOp(d, s))

    plan.emit(b, plan.loops, body)


def _transpose(op, ctx) -> None:
    dst_scope, src_scope = scope_of(op.dst), scope_of(op.src)
    if HBM in (dst_scope, src_scope):
        fail("a transposing copy works on chip (HBM endpoints use DMA)")
    if src_scope != SBUF:
        fail("the source of a transposing copy must be in SBUF (TensorE reads SBUF; TIRx "
             "does not transpose from PSUM either)")
    src_t = dtypes.type_name(elem_type(op.src))
    if src_t not in TENSOR_ENGINE_DTYPES:
        fail(f"TensorE transposes {', '.join(TENSOR_ENGINE_DTYPES)}; the source holds {src_t}")
    b = ctx.builder
    ops = _operands(op)
    plan = refine(b, shape_of(op.dst), ops)
    dst_p, src_p = partition_dims(ops[0]), partition_dims(ops[1])
    if not dst_p or not src_p:
        fail("an endpoint puts no dim on partitions with step 1")
    a, bdim = dst_p[0], src_p[0]
    if a == bdim:
        fail("both endpoints hold the same dim on partitions (no transpose needed)")
    if ops[1].axes[a][0] != "F" or ops[0].axes[bdim][0] != "F":
        fail("the partition dim of each endpoint must be a free dim of the other")
    for j in range(len(plan.sizes)):
        if j not in (a, bdim):
            if "P" in (ops[0].axes[j][0], ops[1].axes[j][0]):
                fail(f"refined dim {j} walks partitions too; one partition dim per endpoint")
            plan.chunk[j] = 1
    plan.pdim = a
    choose_chunks(plan, 1, None)  # every other dim is looped over
    plan.chunk[a], plan.chunk[bdim] = plan.sizes[a], plan.sizes[bdim]
    plan.loops = [j for j in plan.loops if j not in (a, bdim)]
    m, k = plan.sizes[a], plan.sizes[bdim]
    eye_type = BufferType([128, 128], elem_type(op.src), SBUF)
    eye = ctx.alloc_private(("identity", src_t), eye_type,
                            lambda builder, buf: builder.insert(nki.IdentityOp(buf)))
    if k != 128:
        eye = b.insert(SliceOp(eye, [0, 0], [k, k])).result
    check_guards(plan)
    if bdim in plan.guards:  # the source's guarded partitions: as many identity rows, columns
        g = plan.guards[bdim]
        eye = b.insert(SliceOp(eye, [0, 0], [g, g], max_sizes=[k, k])).result
    direct = dst_scope == PSUM and elem_type(op.dst) == f32
    acc = None if direct else scratch_tile(b, op, [m, k], f32, PSUM,
                                           "the transpose's PSUM staging tile")

    def body(bb: Builder, ivs, _counters) -> None:
        out = plan.instruction_view(bb, ops[0], ivs, order=[a, bdim])
        stat = plan.instruction_view(bb, ops[1], ivs, order=[bdim, a])
        if acc is None:
            bb.insert(nki.MatmulOp(out, stat, eye))
        else:
            staged = guard_like(bb, acc, out)
            bb.insert(nki.MatmulOp(staged, stat, eye))
            bb.insert(nki.TensorCopyOp(out, staged))

    plan.emit(b, plan.loops, body)


_WHEN = (THREAD_SCOPE, OPERANDS_ON_TRN,
         no_where("the NKI copies have no zero-filling predicate (tirx.select after the copy)"),
         HONOURS_ROUNDING)
for _op in (T.CopyOp, T.CastOp, T.PermuteLayoutOp, T.CopyAsyncOp):
    register_dispatch(_op, "trn", variant="default", priority=10, when=_WHEN)(
        accepts_guards(_copy))
    register_dispatch(_op, "trn", variant="transpose", priority=5, when=_WHEN)(
        accepts_guards(_transpose))
for _op in (T.CopyOp, T.CopyAsyncOp):  # a row on chip copied to every partition
    register_dispatch(_op, "trn", variant="partition_broadcast", priority=11,
                      when=(*_WHEN, predicate("on_chip_row", on_chip_row)))(
                          accepts_guards(broadcast_on_chip))
