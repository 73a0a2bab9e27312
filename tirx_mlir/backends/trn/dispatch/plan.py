"""Tiling a tile primitive into Trainium instructions (TIRx's InstructionGenerator, re-designed).

A tile op iterates over an *iteration space* (the destination's shape, or the source's for a
reduction). Every operand is given as a view aligned to that space: the iteration size where the
operand has the dim, 1 where it broadcasts (or, for a reduction destination, where the dim is
reduced). The planner then

1. **refines** the space: a dim that crosses a layout tile of some on-chip operand (the 256 rows
   of ``S[(2,128,2048):(2048@F,1@P,1@F)]``) is split into pieces that each walk one physical axis
   (`physical_access` with ``allow_split``), the split points of all operands merged;
2. picks the **partition dim**: the refined dim on which the anchor operand (the destination if
   it is on chip) walks partitions with step 1; every other full on-chip operand must walk
   partitions on the same dim, and free elsewhere;
3. picks the **instruction tile**: the partition dim plus as many free dims (innermost first,
   reduction dims first) as ``max_free`` allows (at most 4 free dims, a partial dim ends the
   run), the rest becomes ``scf.for`` loops;
4. **emits** the loops and, per operand, the instruction view: slice of the refined view at the
   loop offsets, transposed so the partition dim comes first, reshaped to drop unit dims
   (``[P, F...]``, at least ``[P, 1]``).

Guards (views with a dynamic extent, `SliceOp.guards`) ride along in the views: operands must be
guarded alike, and a guarded dim must be one refined dim covered by one instruction (the
partition dim, or a free dim within the instruction size), so every instruction view keeps the
guard and its instruction touches the guarded extent only. Scratch tiles an instruction writes
beside guarded views take the same guards (`access.guard_like`).

Views stay logical (over the logical buffers): `trn-lower-layout` later maps them to physical
tiles, and the interpreter runs either form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tirx_mlir.backends.trn.layout.layouts import effective_layout
from tirx_mlir.backends.trn.layout.physical_access import (NotAffine, PhysicalAccess,
                                                            physical_access)
from tirx_mlir.dialects.tirx.access import (NotAView, const_index, resolve_access,
                                            same_index)
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp, TransposeOp
from tirx_mlir.backends.trn.memory import PSUM, SBUF, is_on_chip
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dispatch import fail
from tirx_mlir.dispatch.builders import btype, emit_loop, largest_divisor_at_most, reshape, shape_of

RowBroadcast = Callable[[Builder, SSAValue, int], SSAValue]
"""``broadcast(builder, row [1, W], partitions) -> tile [partitions, W]`` in SBUF."""

MAX_FREE_DIMS = 4
SBUF_FREE_LIMIT = 65536
PSUM_FREE_LIMIT = 4096


def root_layout(value: SSAValue) -> TileLayout | None:
    """The Trainium layout of the on-chip buffer a view reads (None for HBM)."""
    root = resolve_access(value).buffer_type
    if not is_on_chip(root):
        return None
    return effective_layout(root)


def hardware_free_limit(values: Sequence[SSAValue]) -> int:
    """Free elements one Vector/Scalar instruction may cover (``nl.tile_size``)."""
    psum = any(btype(v).scope_name == PSUM for v in values)
    return PSUM_FREE_LIMIT if psum else SBUF_FREE_LIMIT


# --- the plan -------------------------------------------------------------------------------------


@dataclass
class PlanOperand:
    """One buffer operand: its aligned shape and, once planned, its refined view and axes."""

    value: SSAValue
    aligned_shape: tuple[int, ...]
    name: str = ""
    refined: SSAValue | None = None
    axes: list[tuple[str | None, int]] = field(default_factory=list)
    _chip: tuple[SSAValue, bool] | None = field(default=None, repr=False, compare=False)

    @property
    def on_chip(self) -> bool:
        """Whether the buffer ``value`` views is on chip (asked again only when ``value``
        changes: planning asks it of every operand several times)."""
        known = self._chip
        if known is None or known[0] is not self.value:
            known = self._chip = (self.value, is_on_chip(resolve_access(self.value).buffer_type))
        return known[1]

    def present(self, dim: int) -> bool:
        return self.aligned_shape[dim] != 1


@dataclass
class TilePlan:
    """Refined iteration space, partition dim, instruction tile and loops."""

    sizes: list[int]                  # refined dim sizes
    origin: list[int]                 # iteration dim each refined dim comes from
    reduce: list[bool]                # refined dim is reduced
    operands: list[PlanOperand]
    pdim: int | None = None           # refined partition dim (None: one partition)
    chunk: dict[int, int] = field(default_factory=dict)
    loops: list[int] = field(default_factory=list)  # refined dims walked by scf.for, outer first
    guards: dict[int, SSAValue] = field(default_factory=dict)  # refined dim -> its guard value

    @property
    def partitions(self) -> int:
        return 1 if self.pdim is None else self.sizes[self.pdim]

    def free_order(self) -> list[int]:
        """Refined dims in instruction free order: parallel dims, then reduced dims."""
        par = [j for j in range(len(self.sizes)) if j != self.pdim and not self.reduce[j]]
        red = [j for j in range(len(self.sizes)) if self.reduce[j]]
        return par + red

    def inst_free(self, reduce: bool | None = None) -> list[int]:
        """Non-unit instruction free dims (optionally only the reduced / parallel ones)."""
        return [j for j in self.free_order() if self.chunk.get(j, 1) > 1
                and (reduce is None or self.reduce[j] == reduce)]

    def free_elements(self, reduce: bool | None = None) -> int:
        return math.prod(self.chunk.get(j, 1) for j in self.inst_free(reduce))

    def loop_counts(self, dims: Sequence[int]) -> list[int]:
        return [self.sizes[j] // self.chunk.get(j, 1) for j in dims]

    def parallel_loops(self) -> list[int]:
        return [j for j in self.loops if not self.reduce[j]]

    def reduce_loops(self) -> list[int]:
        return [j for j in self.loops if self.reduce[j]]

    # ---- emission ----
    def instruction_view(self, builder: Builder, operand: PlanOperand,
                         ivs: dict[int, SSAValue | int], *, keep_reduce_dim: bool = False,
                         order: Sequence[int] | None = None) -> SSAValue:
        """The operand's ``[P, F...]`` view for the instruction at loop position ``ivs``.

        ``order`` (refined dims, partition dim first) overrides the plan's partition dim and
        free order (a transposing instruction reads its operands in different orders)."""
        assert operand.refined is not None
        rank = len(self.sizes)
        value = operand.refined
        shape = shape_of(value)
        # the operand has refined dim j (else it broadcasts there and is read at offset 0)
        present = [shape[j] != 1 or self.sizes[j] == 1 for j in range(rank)]
        offsets = [ivs.get(j, 0) if present[j] else 0 for j in range(rank)]
        sizes = [self.chunk.get(j, 1) if present[j] else 1 for j in range(rank)]
        whole = not any(not isinstance(o, int) or o for o in offsets) and \
            tuple(sizes) == shape
        if order is None:
            pdim = self.pdim
            order = ([] if pdim is None else [pdim]) + self.free_order()
            head = [sizes[pdim] if pdim is not None else 1]
            rest = order[1 if pdim is not None else 0:]
        else:
            order = list(order) + [j for j in range(rank) if j not in order]
            head, rest = [sizes[order[0]]], order[1:]
        free = [sizes[j] for j in rest if sizes[j] > 1]
        if keep_reduce_dim and not any(sizes[j] > 1 for j in rest if self.reduce[j]):
            free.append(1)
        final = head + (free or [1])
        non_unit = [j for j in order if sizes[j] > 1]
        if whole and non_unit == sorted(non_unit) and tuple(final) == shape_of(operand.value):
            return operand.value  # the instruction reads the operand as it is
        if not whole:
            value = builder.insert(SliceOp(value, offsets, sizes)).result
        if list(order) != list(range(rank)):
            value = builder.insert(TransposeOp(value, list(order))).result
        return reshape(builder, value, final)

    def views(self, builder: Builder, operands: dict[str, PlanOperand],
              ivs: dict[int, SSAValue | int], *names: str) -> list[SSAValue]:
        """`instruction_view` of several named operands."""
        return [self.instruction_view(builder, operands[n], ivs) for n in names]

    def emit(self, builder: Builder, loops: Sequence[int],
             body: Callable[[Builder, dict[int, SSAValue | int], dict[int, SSAValue]], None],
             ivs: dict[int, SSAValue | int] | None = None,
             counters: dict[int, SSAValue] | None = None) -> None:
        """Nest ``scf.for`` over ``loops`` (refined dims, outer first) and call
        ``body(builder, ivs, counters)``: ``ivs[j]`` is the offset of the instruction tile in
        refined dim j, ``counters[j]`` its block index (offset / chunk)."""
        ivs, counters = dict(ivs or {}), dict(counters or {})
        for j in loops:
            chunk = self.chunk.get(j, 1)
            builder, q = emit_loop(builder, self.sizes[j] // chunk, 1)
            q.name_hint = "b"
            counters[j] = q
            ivs[j] = q if chunk == 1 else \
                builder.insert(arith.MuliOp(q, const_index(builder, chunk))).result
        body(builder, ivs, counters)


# --- planning -------------------------------------------------------------------------------------


def _split_points(pieces) -> set[int]:
    points, inner = set(), 1
    for piece in reversed(pieces[1:]):
        inner *= piece.size
        points.add(inner)
    return points


def _refine_sizes(n: int, points: set[int]) -> list[int] | None:
    chain = sorted(p for p in points if 1 < p < n)
    prev = 1
    for p in chain + [n]:
        if p % prev:
            return None
        prev = p
    bounds = chain + [n]
    sizes, prev = [], 1
    for b in bounds:
        sizes.append(b // prev)
        prev = b
    return list(reversed(sizes))


def refine(builder: Builder, iter_shape: Sequence[int], operands: Sequence[PlanOperand], *,
           reduce_dims: Sequence[int] = ()) -> TilePlan:
    """Steps 1 of the module docstring: the refined iteration space, each operand's refined
    view and, per refined dim, the physical axis and step it walks (None for HBM)."""
    rank = len(iter_shape)
    for op in operands:
        if len(op.aligned_shape) != rank or any(a not in (1, n) for a, n in
                                                zip(op.aligned_shape, iter_shape)):
            raise AssertionError(f"operand {op.name} is not aligned to {list(iter_shape)}")
    aligned = [reshape(builder, op.value, op.aligned_shape) for op in operands]
    guards = _iteration_guards(operands, aligned)
    points: list[set[int]] = [set() for _ in range(rank)]
    layouts = [root_layout(view) for view in aligned]  # a refined view reads the same buffer
    split: list[PhysicalAccess | None] = []
    for op, view, layout in zip(operands, aligned, layouts):
        if layout is None:
            split.append(None)
            continue
        try:
            pa = physical_access(view, layout, allow_split=True)
        except NotAffine as err:
            fail(f"operand '{op.name}' is not one strided view of its tile: {err}")
        split.append(pa)
        for k, pieces in enumerate(pa.dims):
            points[k] |= _split_points(pieces)
    sizes: list[int] = []
    origin: list[int] = []
    for k, n in enumerate(iter_shape):
        sub = _refine_sizes(n, points[k])
        if sub is None:
            fail(f"the operands split dim {k} (size {n}) along incompatible layout tiles")
        sizes += sub
        origin += [k] * len(sub)
    reduce = [origin[j] in set(reduce_dims) for j in range(len(sizes))]
    plan = TilePlan(sizes, origin, reduce, list(operands))
    for k, value in guards.items():
        pieces = [j for j in range(len(sizes)) if origin[j] == k and sizes[j] > 1]
        if len(pieces) != 1:
            tile = max((sizes[j] for j in pieces), default=1)
            fail(f"guarded dim {k} (at most {iter_shape[k]}) crosses {len(pieces)} layout "
                 f"tiles of an operand (of {tile}); a guard bounds one tile: loop over tiles "
                 f"of {tile} and guard each by min({tile}, n - {tile} * t), the last one "
                 f"partial")
        plan.guards[pieces[0]] = value
    for op, view, layout, pa in zip(operands, aligned, layouts, split):
        shape = [s if op.present(origin[j]) else 1 for j, s in enumerate(sizes)]
        op.refined = reshape(builder, view, shape)
        if pa is None:
            op.axes = [(None, 0)] * len(sizes)
            continue
        if op.refined is not view or not pa.is_simple():
            # the unsplit pattern of a view no dim of which was split is the split one: the
            # decomposition splits a dim only where it would otherwise fail (`physical_access`)
            try:
                pa = physical_access(op.refined, layout)
            except NotAffine as err:
                fail(f"operand '{op.name}' is not one strided view of its tile: {err}")
        op.axes = [(pa.axis_of(j), pa.step_of(j)) for j in range(len(sizes))]
    return plan


def partition_dims(op: PlanOperand) -> list[int]:
    """Refined dims on which the operand walks partitions with step 1."""
    return [j for j, (ax, step) in enumerate(op.axes) if ax == "P" and step == 1]


def plan_tiles(builder: Builder, iter_shape: Sequence[int], operands: Sequence[PlanOperand], *,
               anchor: int = 0, reduce_dims: Sequence[int] = (), max_free: int,
               max_reduce: int | None = None, vector_operands: Sequence[int] = (),
               broadcast: "RowBroadcast | None" = None) -> TilePlan:
    """Plan the instruction tiling (see the module docstring); declines with `fail` when the
    operands cannot share one partition dim or a view is not affine in physical space.

    With ``broadcast``, an on-chip operand that broadcasts along the partition dim is first put
    on the instruction's partitions by it (`partition_broadcast.broadcast_row`), and the
    instructions read that tile; without it, such an operand declines the variant."""
    plan = refine(builder, iter_shape, operands, reduce_dims=reduce_dims)
    rows = _choose_partition_dim(plan, anchor)
    for op in rows:
        if broadcast is None:
            fail(f"operand '{op.name}' broadcasts along the partition dim; Trainium engines "
                 f"cannot broadcast across partitions (copy it to every partition first)")
        _broadcast_into_tile(builder, plan, op, broadcast)
    # A DMA reads HBM with a stride-0 partition dim only, and a broadcast row's tile holds the
    # row's free dims only: loop over the free dims such an operand broadcasts along.
    for op in [o for o in operands if not o.on_chip] + rows:
        for j, n in enumerate(shape_of(op.refined)):  # type: ignore[arg-type]
            if j != plan.pdim and n == 1 and plan.sizes[j] > 1:
                plan.chunk[j] = 1
    for index in vector_operands:  # a (P, 1) operand per instruction: loop over its free dims
        shape = shape_of(operands[index].refined)  # type: ignore[arg-type]
        for j, n in enumerate(shape):
            if j != plan.pdim and n > 1:
                plan.chunk[j] = 1
    choose_chunks(plan, max_free, max_reduce)
    check_guards(plan)
    return plan


def _iteration_guards(operands: Sequence[PlanOperand], aligned: Sequence[SSAValue]
                      ) -> dict[int, SSAValue]:
    """Iteration dim -> the guard value bounding it. Operands are guarded alike: every operand
    that spans a guarded dim is guarded there by the same value (the tile-level rule, stated in
    docs/ir.md: an op on guarded views iterates over their common dynamic extent)."""
    found: dict[int, SSAValue] = {}
    per_operand = []
    for op, view in zip(operands, aligned):
        try:
            pattern = resolve_access(view)
        except NotAView as err:
            fail(f"operand '{op.name}': {err}")
        per_operand.append(pattern.guards or (None,) * len(op.aligned_shape))
        for k, g in enumerate(per_operand[-1]):
            if g is not None:
                found.setdefault(k, g)
    for k, g in found.items():
        for op, mine in zip(operands, per_operand):
            if op.aligned_shape[k] == 1 or mine[k] is g:
                continue
            if mine[k] is None or not same_index(mine[k], g):
                fail(f"dim {k} is guarded in one operand but operand '{op.name}' "
                     f"{'is not guarded there' if mine[k] is None else 'has another guard'}; "
                     f"guard every operand of the op alike")
    return found


def check_guards(plan: TilePlan) -> None:
    """A guarded dim is covered by one instruction (its partition dim, or a free dim that
    fits): the instruction's extent is then the guard itself."""
    for j in plan.guards:
        if j in plan.loops or plan.chunk.get(j, 1) != plan.sizes[j]:
            c = plan.chunk.get(j, 1)
            fail(f"guarded dim {plan.origin[j]} (at most {plan.sizes[j]}) does not fit one "
                 f"instruction ({c} elements); one instruction covers a guard: loop over "
                 f"tiles of {c} guarded by min({c}, n - {c} * t), or raise max_inst_size to "
                 f"{plan.sizes[j]} where the engine allows it")


def _broadcast_into_tile(builder: Builder, plan: TilePlan, op: PlanOperand,
                         broadcast: "RowBroadcast") -> None:
    """Replace operand ``op`` (1 on the partition dim) by a tile holding its row on every
    instruction partition, made once here by ``broadcast(builder, row [1, W], partitions)``."""
    assert op.refined is not None and plan.pdim is not None
    refined = shape_of(op.refined)
    rest = [j for j in range(len(refined)) if j != plan.pdim]
    order = [plan.pdim] + rest
    width = math.prod(refined[j] for j in rest)
    tile = broadcast(builder, reshape(builder, op.refined, [1, width]), plan.partitions)
    view = reshape(builder, tile, [plan.partitions if j == plan.pdim else refined[j]
                                   for j in order])
    if order != sorted(order):
        view = builder.insert(TransposeOp(view, [order.index(j) for j in range(len(order))])).result
    pa = physical_access(view, effective_layout(btype(tile)))
    if plan.pdim in plan.guards:  # guarded rows: the broadcast tile's rows guarded alike
        guard = plan.guards[plan.pdim]
        view = _guarded(builder, view, plan.pdim, guard)
        tile = _guarded(builder, tile, 0, guard)
    op.value = tile
    op.refined = view
    op.axes = [(pa.axis_of(j), pa.step_of(j)) for j in range(len(refined))]


def _guarded(builder: Builder, view: SSAValue, dim: int, guard: SSAValue) -> SSAValue:
    shape = shape_of(view)
    sizes: list = [guard if j == dim else n for j, n in enumerate(shape)]
    return builder.insert(SliceOp(view, [0] * len(shape), sizes, max_sizes=shape)).result


def _choose_partition_dim(plan: TilePlan, anchor: int) -> list[PlanOperand]:
    """Set the plan's partition dim; return the on-chip operands that broadcast along it."""
    chips = [op for op in plan.operands if op.on_chip]
    if not chips:
        fail(f"no operand is on chip ({SBUF} / {PSUM})")
    ref = plan.operands[anchor] if plan.operands[anchor].on_chip else chips[0]
    cands = [j for j, (ax, step) in enumerate(ref.axes) if ax == "P" and step == 1]
    plan.pdim = cands[0] if cands else None
    if plan.pdim is not None and plan.reduce[plan.pdim]:
        fail(f"the reduction runs over dim {plan.origin[plan.pdim]}, which operand "
             f"'{ref.name}' holds on partitions; Trainium reduces free dims only (give the "
             f"source a layout with the reduced dims on F, or transpose it first)")
    if plan.pdim is None and any(ax == "P" for ax, _ in ref.axes):
        fail(f"operand '{ref.name}' walks partitions with a stride; partitions cannot be "
             f"strided")
    broadcasting = []
    for op in chips:
        for j, (ax, step) in enumerate(op.axes):
            if j == plan.pdim:
                if plan.sizes[j] > 1 and shape_of(op.refined)[j] == 1:  # type: ignore[arg-type]
                    broadcasting.append(op)
                    break
                if ax != "P" or step != 1:
                    fail(f"operand '{op.name}' does not put dim {plan.origin[j]} on "
                         f"partitions like '{ref.name}' does (partition mismatch: a transpose "
                         f"is needed)")
            elif ax == "P" and plan.sizes[j] > 1:
                plan.chunk[j] = 1  # another partition walk: loop over it
    return broadcasting


def choose_chunks(plan: TilePlan, max_free: int, max_reduce: int | None) -> None:
    forced = {j for j, c in plan.chunk.items() if c == 1}
    budget = {True: max_reduce if max_reduce is not None else max_free, False: max_free}
    used, ndims = 1, 0
    for red in (True, False):
        order = [j for j in reversed(plan.free_order()) if plan.reduce[j] == red]
        class_used = 1
        for j in order:
            n = plan.sizes[j]
            if j in forced or n == 1:
                plan.chunk[j] = 1
                continue
            if ndims >= MAX_FREE_DIMS:
                plan.chunk[j] = 1
                continue
            c = largest_divisor_at_most(n, min(budget[red] // class_used, max_free // used))
            plan.chunk[j] = c
            if c > 1:
                ndims += 1
                used *= c
                class_used *= c
            if c < n:
                for rest in order[order.index(j) + 1:]:
                    plan.chunk[rest] = 1
                break
    if plan.pdim is not None:
        plan.chunk[plan.pdim] = plan.sizes[plan.pdim]
    plan.loops = [j for j in range(len(plan.sizes))
                  if j != plan.pdim and plan.chunk.get(j, 1) < plan.sizes[j] and not plan.reduce[j]]
    plan.loops += [j for j in range(len(plan.sizes))
                   if plan.reduce[j] and plan.chunk.get(j, 1) < plan.sizes[j]]
