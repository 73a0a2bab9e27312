"""CUDA variants of the reductions ``sum`` / ``max`` / ``min`` and ``reduce_negate``, over any
axes, with ``accum``.

TIRx registers ``local`` (10: register tiles) and ``shared`` (10: shared-memory tiles) for each
(apache/tvm ``python/tvm/backend/cuda/tile_primitive/reduction/``); ours are the same two names
over one engine (`lower`), which reads the source's distribution over the scope's threads as
bits of ``threadIdx.x`` (`reduction_plan`):

1. each thread folds the elements it holds per kept coordinate (unrolled: registers by
   constant index, shared memory at its physical addresses; a shared source reduced into
   shared memory without step 3 runs its kept coordinates as loops, `_Reduction.rolled`, and
   so does a register source reduced into registers without step 3,
   `_Reduction.rolled_registers`, the register indices affine in the loops' induction
   variables: the PTX printer expands those loops, printers/ptx/unroll.py);
2. a xor butterfly of ``shfl.sync.bfly`` over the reduced lane bits;
3. when warps hold parts of the same rows (reduced warp bits), or a register destination's
   layout puts a row's result in other threads than the source's, the partial results go
   through a shared scratch (one per op, `DispatchContext.alloc_private`), with a barrier;
4. the result, folded with the old destination for ``accum`` (``reduce_negate`` keeps the
   running negated value: ``dst = -reduce(-dst, reduce(src))``, as the tile interpreter), is
   written to the destination's registers, or to shared memory by one thread per row.

``local`` reads a register tile by its own layout; ``shared`` synthesizes the spread
(`reduction_plan.memory_spread`: lanes along the innermost dim, conflict-free and coalesced).
Values are combined in f32 (f64 for f64 tiles) and rounded on store. max/min propagate NaN as
the tile interpreter does: ``arith.maximumf`` / ``minimumf`` (PTX ``max.NaN.f32``, sm_80),
never ``fmaxf``, which drops a NaN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, i32
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.cuda.warp import ShflSyncOp
from tirx_mlir.backends.cuda.dispatch import common, pointwise, rounds
from tirx_mlir.backends.cuda.layout.reduction_plan import (PlanError, ReductionPlan,
                                                             memory_spread,
                                                             scope_bits)
from tirx_mlir.backends.cuda.layout.defaults import SCOPE_AXIS
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition, partition_of
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index, resolve_access
from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.layout import row_major_strides
from tirx_mlir.dispatch import exec_scope_in, fail
from tirx_mlir.dispatch.builders import elem_type, shape_of
from tirx_mlir.ir_insert import nested_builder

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

COMBINE = {"sum": arith.AddfOp, "max": arith.MaximumfOp, "min": arith.MinimumfOp}
"""How two partial results combine: max/min propagate NaN (IEEE 754-2019 maximum/minimum)."""

REDUCE_OPS: dict[type, str] = {T.SumOp: "sum", T.MaxOp: "max", T.MinOp: "min"}

Load = Callable[[Builder, int, Sequence[IndexExpr]], SSAValue]
"""``load(builder, slot, shift)``: the source element a thread holds in partition slot ``slot``,
its coordinate moved by ``shift`` (zero unless the keys are rolled, `_Reduction.rolled`)."""


def reduce_kind(op: T._ReduceOp) -> str:  # noqa: SLF001 - the reductions' shared base
    return op.reduce.data if isinstance(op, T.ReduceNegateOp) else REDUCE_OPS[type(op)]


def combine(b: Builder, kind: str, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith_binary(COMBINE[kind], x, y)).result


def _i32(b: Builder, value: int) -> SSAValue:
    return b.insert(arith_constant(value, i32)).result


def _guarded(b: Builder, cond: SSAValue) -> Builder:
    """A builder inside ``scf.if cond``."""
    body = Block()
    body.add_op(scf.YieldOp())
    b.insert(scf.IfOp(cond, [], [body]))
    return nested_builder(b, InsertPoint.before(body.last_op))


def _bits_zero(b: Builder, ids: common.ThreadIds, mask: int) -> SSAValue | None:
    """``(threadIdx.x & mask) == 0``, None when ``mask`` is 0."""
    if not mask:
        return None
    bits = b.insert(arith.AndIOp(ids["tx"], const_index(b, mask))).result
    return b.insert(arith.CmpiOp(bits, const_index(b, 0), "eq")).result


class _Reduction:
    """One reduction being lowered: the plan, the thread ids and the compute type."""

    def __init__(self, op: T._ReduceOp, ctx, part: RegisterPartition):  # noqa: SLF001
        self.op, self.ctx, self.b = op, ctx, ctx.builder
        self.kind = reduce_kind(op)
        self.negate = isinstance(op, T.ReduceNegateOp)
        self.accum = op.flag("accum")
        self.ctype = pointwise.compute_type([elem_type(op.src), elem_type(op.dst)])
        if not isinstance(self.ctype, AnyFloat):
            fail("the CUDA reductions compute in floating point; cast integer tiles first")
        try:
            axes = rules.normalize_axes(op.ints_prop("axes", (-1,)), len(shape_of(op.src)))
            # the bits of threadIdx.x (an axis "to the block's end" is that wide): a warp or
            # warpgroup reduction in a block of 3 warpgroups reads only its own digits
            block = (common.block_threads(ctx) - 1).bit_length()
            self.nbits = scope_bits(op.exec_scope, common.block_threads(ctx))
            self.plan = ReductionPlan(part, axes, self.nbits, block)
        except (PlanError, rules.RuleError) as err:
            fail(str(err))
        self.ids = common.ThreadIds(self.b)
        self.cache: dict = {}
        self.thread = self.ids.thread_coords(part) if part.threads else \
            (IndexExpr(),) * len(part.shape)

    # ---- the steps ----
    def partials(self, load: Load, keys: Sequence[int] | None = None,
                 shift: Sequence[IndexExpr] | None = None) -> dict[int, SSAValue]:
        """Per key (of ``keys``, default all): the fold of the thread's elements, then the
        butterfly over lane bits."""
        b, out = self.b, {}
        shift = tuple(shift) if shift is not None else (IndexExpr(),) * len(self.plan.shape)
        for key in self.plan.keys if keys is None else keys:
            acc = None
            for r in self.plan.keys[key]:
                v = pointwise.convert(b, load(b, r, shift), self.ctype)
                acc = v if acc is None else combine(b, self.kind, acc, v)
            out[key] = acc
        if self.plan.lane_bits:
            mask = _i32(b, -1)
            for bit in self.plan.lane_bits:
                offset = _i32(b, 1 << bit)
                for key, v in out.items():
                    other = b.insert(ShflSyncOp(mask, v, offset, mode="xor")).result
                    out[key] = combine(b, self.kind, v, other)
        return out

    def finish(self, b: Builder, value: SSAValue, old: Callable[[], SSAValue]) -> SSAValue:
        """The value to store: folded with the old destination for ``accum``, negated for
        reduce_negate, in the destination's type."""
        if self.accum:
            prev = pointwise.convert(b, old(), self.ctype)
            if self.negate:
                prev = b.insert(arith.NegfOp(prev)).result
            value = combine(b, self.kind, prev, value)
        if self.negate:
            value = b.insert(arith.NegfOp(value)).result
        return pointwise.convert(b, value, elem_type(self.op.dst))

    def kept_coord(self, key: int) -> tuple[IndexExpr, ...]:
        """The kept coordinate (over the kept dims) of a key in this thread."""
        plan = self.plan
        return tuple(self.thread[d] + c for d, c in zip(plan.kept_dims, plan.key_coords[key]))

    def kept_flat(self, coord: Sequence[IndexExpr]) -> IndexExpr:
        flat = IndexExpr()
        for c, s in zip(coord, self.plan.kept_strides):
            flat = flat + c.scale(s)
        return flat

    def rolled(self, load: Load) -> bool:
        """A reduction into memory without a scratch exchange as one loop nest over its keys
        (`rounds.roll`: every key's elements are the first key's, moved by constant steps),
        each iteration folding, exchanging and writing one key; False (nothing built) when the
        keys do not roll. The register folds stay unrolled."""
        loops = rounds.roll(list(self.plan.keys.values()), self.plan.part.reg_coords)
        if loops is None:
            return False
        self.ids["tx"]  # the writer's test reads it: define it before the loop
        self.b, shift = loops.emit(self.b)
        self.thread = tuple(t + s for t, s in zip(self.thread, shift))
        self.cache = {}  # the body's index values stay in the body
        first = next(iter(self.plan.keys))
        values = self.partials(load, [first], shift)
        cond = _bits_zero(self.b, self.ids, self.plan.writer_mask)
        self.write_memory(self.b if cond is None else _guarded(self.b, cond), values)
        return True

    def rolled_registers(self, load: Load, dpart: RegisterPartition, array: SSAValue,
                         keys: list[int]) -> bool:
        """A register-to-register reduction without a scratch exchange as one loop nest over
        its keys, each iteration folding, exchanging and writing one key: the source and
        destination register indices join the rolled coordinate (`rounds.roll`), so the keys
        roll only when both move by constant steps too (the shift `load` gets has the source
        register's after the dims); False (nothing built) otherwise, or when a key is not
        written by exactly one destination register."""
        dst_reg: dict[int, int] = {}
        for r, key in zip(dpart.registers(), keys):
            if key in dst_reg:
                return False
            dst_reg[key] = r
        if set(dst_reg) != set(self.plan.keys):
            return False
        key_of = {r: key for key, slots in self.plan.keys.items() for r in slots}
        loops = rounds.roll(list(self.plan.keys.values()),
                            lambda r: (*self.plan.part.reg_coords(r), r, dst_reg[key_of[r]]))
        if loops is None:
            return False
        self.b, shift = loops.emit(self.b)
        self.cache = {}  # the body's index values stay in the body
        first = next(iter(self.plan.keys))
        value = self.partials(load, [first], shift)[first]
        b, rank, t = self.b, len(self.plan.shape), elem_type(self.op.dst)
        idx = common.index_value(b, common.materialize_cached(
            b, shift[rank + 1] + IndexExpr(dst_reg[first]), self.cache))
        old = lambda: b.insert(LoadOp(array, idx, result_types=[t])).result
        b.insert(StoreOp(array, idx, self.finish(b, value, old)))
        return True

    # ---- destinations ----
    def write_memory(self, b: Builder, values: dict[int, SSAValue]) -> None:
        dst = self.op.dst
        nonunit = [i for i, n in enumerate(self.plan.kept_shape) if n != 1]
        dshape = shape_of(dst)
        dims = [i for i, n in enumerate(dshape) if n != 1]
        for key, v in values.items():
            kept = self.kept_coord(key)
            coord = [IndexExpr()] * len(dshape)
            for di, ki in zip(dims, nonunit):
                coord[di] = kept[ki]
            buf, base = common.base_coords(dst, tuple(coord))
            index = common.index_value(b, common.physical_index(b, buf.type, base, self.cache))
            old = lambda: b.insert(LoadOp(buf, index, result_types=[elem_type(dst)])).result
            b.insert(StoreOp(buf, index, self.finish(b, v, old)))

    def dst_registers(self) -> tuple[RegisterPartition, SSAValue]:
        dst = self.op.dst
        if resolve_access(dst).buffer is not dst:
            fail("a register destination must be a whole register tile, not a view")
        return common.register_partition(dst), common.registers(self.ctx, dst)

    def dst_flat_table(self, dpart: RegisterPartition) -> np.ndarray:
        """[threads of the scope, registers]: the kept index each destination register holds."""
        tx = common.scope_thread_ids(self.op.exec_scope, common.block_threads(self.ctx))
        axes = common.axis_values_np(tx)
        strides = row_major_strides(dpart.shape)
        regs = np.array([dpart.reg_coords(r) for r in dpart.registers()],
                        dtype=np.int64).reshape(-1, len(dpart.shape))
        coords = dpart.thread_coords_array(axes, len(tx))[:, None, :] + regs[None, :, :]
        return coords @ np.array(strides, dtype=np.int64).reshape(-1)

    def write_registers(self, values: dict[int, SSAValue], keys: list[int],
                        dpart: RegisterPartition, array: SSAValue) -> None:
        b = self.b
        t = elem_type(self.op.dst)
        for r, key in zip(dpart.registers(), keys):
            idx = const_index(b, r)
            old = lambda i=idx: b.insert(LoadOp(array, i, result_types=[t])).result
            b.insert(StoreOp(array, idx, self.finish(b, values[key], old)))

    # ---- the scratch exchange ----
    def through_scratch(self, values: dict[int, SSAValue], to_registers: bool) -> None:
        b, plan, scope = self.b, self.plan, self.op.exec_scope
        size, parts = plan.kept_size, plan.partials
        per_instance = parts * size
        instances = common.block_threads(self.ctx) >> self.nbits
        scratch = self.ctx.alloc_private(
            ("reduction scratch", id(self.op)),
            BufferType([per_instance * instances], self.ctype, SHARED_SCOPES[0]))
        base = IndexExpr()
        if instances > 1:
            inst = self.ids["warpid" if scope == ExecScope.WARP else "wgid"]
            base = IndexExpr.of(inst).scale(per_instance)
        part_index = IndexExpr()
        shift = 0
        for lo, n in plan.warp_runs():
            digit = self.ids.digit(self.ids["tx"], 1 << lo, 1 << n)
            part_index = part_index + IndexExpr.of(digit).scale((1 << shift) * size)
            shift += n
        if self.ctx.loop_ranges():  # an earlier iteration may still read the scratch
            common.scope_barrier(b, scope)
        wb = b
        cond = _bits_zero(b, self.ids, plan.writer_mask)
        if cond is not None:
            wb = _guarded(b, cond)
        for key, v in values.items():
            at = base + part_index + self.kept_flat(self.kept_coord(key))
            wb.insert(StoreOp(scratch, common.index_value(
                wb, common.materialize_cached(wb, at, self.cache)), v))
        common.scope_barrier(b, scope)

        def gathered(bb: Builder, flat: IndexExpr, first: int) -> list[SSAValue]:
            out = []
            for q in range(first, parts):
                at = common.materialize_cached(bb, base + flat + IndexExpr(q * size), self.cache)
                out.append(bb.insert(LoadOp(scratch, common.index_value(bb, at),
                                            result_types=[self.ctype])).result)
            return out

        if to_registers:
            self._gather_registers(gathered)
            return
        fb = b
        cond = _bits_zero(b, self.ids, plan.writer_mask | sum(1 << x for x in plan.warp_bits))
        if cond is not None:
            fb = _guarded(b, cond)
        totals = {}
        for key, v in values.items():
            for other in gathered(fb, self.kept_flat(self.kept_coord(key)), 1):
                v = combine(fb, self.kind, v, other)
            totals[key] = v
        self.write_memory(fb, totals)

    def _gather_registers(self, gathered) -> None:
        b = self.b
        dpart, array = self.dst_registers()
        thread = self.ids.thread_coords(dpart) if dpart.threads else \
            (IndexExpr(),) * len(dpart.shape)
        strides = row_major_strides(dpart.shape)
        t = elem_type(self.op.dst)
        for r in dpart.registers():
            coord = [x + c for x, c in zip(thread, dpart.reg_coords(r))]
            flat = IndexExpr()
            for c, s in zip(coord, strides):
                flat = flat + c.scale(s)
            parts = gathered(b, flat, 0)
            v = parts[0]
            for other in parts[1:]:
                v = combine(b, self.kind, v, other)
            idx = const_index(b, r)
            old = lambda i=idx: b.insert(LoadOp(array, i, result_types=[t])).result
            b.insert(StoreOp(array, idx, self.finish(b, v, old)))


def lower(op: T._ReduceOp, ctx, part: RegisterPartition, load: Load,  # noqa: SLF001
          rollable: bool = False, registers: bool = False) -> None:
    """The reduction of a source distributed by ``part`` (module docstring); ``rollable``: the
    source is memory, so its keys may become a loop (`_Reduction.rolled`); ``registers``: the
    source is registers, whose keys may become a loop into a register destination
    (`_Reduction.rolled_registers`)."""
    red = _Reduction(op, ctx, part)
    plan = red.plan
    to_registers = resolve_access(op.dst).buffer_type.scope_name == LOCAL
    if rollable and not to_registers and not plan.warp_bits and red.rolled(load):
        return
    if registers and to_registers and not plan.warp_bits:
        dpart, array = red.dst_registers()
        keys = plan.direct_keys(red.dst_flat_table(dpart))
        if keys is not None and red.rolled_registers(load, dpart, array, keys):
            return
    values = red.partials(load)
    if plan.warp_bits:
        red.through_scratch(values, to_registers)
        return
    if not to_registers:
        b = red.b
        cond = _bits_zero(b, red.ids, plan.writer_mask)
        red.write_memory(b if cond is None else _guarded(b, cond), values)
        return
    dpart, array = red.dst_registers()
    keys = plan.direct_keys(red.dst_flat_table(dpart))
    if keys is None:
        red.through_scratch(values, True)
    else:
        red.write_registers(values, keys, dpart, array)


# --- the variants ---------------------------------------------------------------------------------


def _local(op, ctx) -> None:
    """Registers to registers: the source tile's own layout."""
    src = op.src
    if resolve_access(src).buffer is not src:
        fail("the register source must be a whole register tile, not a view")
    part = common.register_partition(src)
    array = common.registers(ctx, src)
    t = elem_type(src)
    rank = len(part.shape)

    def load(b: Builder, r: int, shift: Sequence[IndexExpr]) -> SSAValue:
        """Register ``r``, moved by the rolled key's register shift (after the dims)."""
        moved = shift[rank] + IndexExpr(r) if len(shift) > rank else IndexExpr(r)
        index = common.index_value(b, common.materialize_cached(b, moved, None))
        return b.insert(LoadOp(array, index, result_types=[t])).result

    lower(op, ctx, part, load, registers=True)


def _shared(op, ctx) -> None:
    """Shared memory to shared memory: a synthesized spread of the source."""
    src = op.src
    shape = shape_of(src)
    scope = op.exec_scope
    try:
        axes = rules.normalize_axes(op.ints_prop("axes", (-1,)), len(shape))
        nbits = scope_bits(scope, common.block_threads(ctx))
    except (PlanError, rules.RuleError) as err:
        fail(str(err))
    layout = memory_spread(shape, axes, nbits, SCOPE_AXIS.get(scope))
    try:
        part = partition_of(layout, shape)
    except PartitionError as err:
        fail(str(err))
    ids = common.ThreadIds(ctx.builder)
    thread = ids.thread_coords(part) if part.threads else (IndexExpr(),) * len(shape)
    cache: dict = {}
    t = elem_type(src)

    def load(b: Builder, r: int, shift: Sequence[IndexExpr]) -> SSAValue:
        coord = tuple(x + s + c for x, s, c in zip(thread, shift, part.reg_coords(r)))
        buf, base = common.base_coords(src, coord)
        index = common.index_value(b, common.physical_index(b, buf.type, base, cache))
        return b.insert(LoadOp(buf, index, result_types=[t])).result

    lower(op, ctx, part, load, rollable=rounds.unswizzled([src]))


SCOPES = exec_scope_in("thread", "warp", "warpgroup", "cta")
WHEN_LOCAL = [SCOPES, common.ONE_DIM_BLOCK, common.operands_in(LOCAL)]
WHEN_SHARED = [SCOPES, common.ONE_DIM_BLOCK, common.operands_in(*SHARED_SCOPES)]

for _cls in (*REDUCE_OPS, T.ReduceNegateOp):
    common.cuda_variant(_cls, "local", 10, WHEN_LOCAL)(_local)
    common.cuda_variant(_cls, "shared", 10, WHEN_SHARED)(_shared)

